//! The tools over approved folders: list one, import files from it.

use super::args::string_arg;
use super::{Gate, Prepared, READ_ONLY, Tool, ToolContext, ToolId, ToolMeta, ToolName, ToolOutput};
use crate::runs::model_view::summary;
use crate::runs::router::Intent;
use crate::{Error, Result};
use async_trait::async_trait;
use aware_domain::auth::Capability;
use aware_domain::events::{ResourceRef, RichResult};
use aware_domain::events::{Tier, ToolRisk};
use serde_json::{Value, json};
use std::borrow::Cow;

fn root_arg(args: &Value) -> Result<&str> {
    let root = string_arg(args, "root")?;
    if root.trim().is_empty() {
        return Err(Error::validation("root", "root (the approved folder's name) is required"));
    }
    Ok(root)
}

pub(super) struct ListDirectory;

static LISTDIRECTORY: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::ListDirectory),
    activity: Cow::Borrowed("Looking in the folder…"),
    intents: &[Intent::FileBrowse, Intent::FileImport],
    title: Cow::Borrowed("List a folder"),
    description: Cow::Borrowed(
        "List one folder inside an approved folder (a root, e.g. `downloads`; `staging` always exists): \
         each entry's name, kind, size, modified time and whether it can be imported. The user sees the listing; \
         you get counts by kind and format.",
    ),
    risk: READ_ONLY,
    gate: Gate::Capability(Capability::FileRead),
};

#[async_trait]
impl Tool for ListDirectory {
    fn meta(&self) -> &ToolMeta {
        &LISTDIRECTORY
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "root": {"type": "string", "description": "the approved folder's name"},
                "path": {"type": "string", "description": "a folder inside it, `/`-separated; empty for the root"},
                "pattern": {"type": "string", "description": "a file-name glob such as *.csv; empty for all"}
            },
            "required": ["root"]
        })
    }
    async fn prepare(&self, _ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let root = root_arg(args)?;
        let path = string_arg(args, "path")?;
        string_arg(args, "pattern")?;
        Ok(Prepared {
            ask: None,
            blast_radius: None,
            resource: ResourceRef {
                kind: "folder".to_owned(),
                id: format!("{root}/{path}"),
                display_name: root.to_owned(),
            },
            description: "List a folder".to_owned(),
            pinned: None,
        })
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let listing = ctx
            .services
            .files
            .list(&ctx.caller, root_arg(args)?, string_arg(args, "path")?, string_arg(args, "pattern")?)
            .await?;
        Ok(ToolOutput { llm_summary: summary::listing(&listing), rich: Some(RichResult::DirectoryListing { listing }) })
    }
}

pub(super) struct ImportFiles;

static IMPORTFILES: ToolMeta = ToolMeta {
    name: ToolId::Builtin(ToolName::ImportFiles),
    activity: Cow::Borrowed("Importing files…"),
    intents: &[Intent::FileImport],
    title: Cow::Borrowed("Import files"),
    description: Cow::Borrowed(
        "Import files from an approved folder as datasets: either `paths` (up to 20, relative to the root) or \
         `path` + `pattern` for every importable file a listing with them shows. Files are copied, never moved. A \
         person must approve the list first.",
    ),
    risk: ToolRisk { read_only: false, destructive: false, confirmation: Some(Tier::Standard) },
    gate: Gate::Capability(Capability::FileImport),
};

/// The files an import names: its `paths`, or what its folder and pattern list.
async fn import_paths(ctx: &ToolContext, args: &Value) -> Result<Vec<String>> {
    let root = root_arg(args)?;
    match args.get("paths") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|p| p.as_str().map(str::to_owned).ok_or_else(|| Error::validation("paths", "paths must be strings")))
            .collect(),
        Some(_) => Err(Error::validation("paths", "paths must be a list of file paths")),
        None => {
            ctx.services
                .files
                .importable(&ctx.caller, root, string_arg(args, "path")?, string_arg(args, "pattern")?)
                .await
        }
    }
}

#[async_trait]
impl Tool for ImportFiles {
    fn meta(&self) -> &ToolMeta {
        &IMPORTFILES
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "root": {"type": "string", "description": "the approved folder's name"},
                "paths": {"type": "array", "items": {"type": "string"}, "maxItems": 20},
                "path": {"type": "string", "description": "with pattern: the folder whose matching files to import"},
                "pattern": {"type": "string", "description": "with path: a file-name glob such as *.csv"}
            },
            "required": ["root"]
        })
    }
    async fn prepare(&self, ctx: &ToolContext, args: &Value) -> Result<Prepared> {
        let root = root_arg(args)?;
        let paths = import_paths(ctx, args).await?;
        ctx.services.files.check_import(&ctx.caller, root, &paths)?;
        Ok(Prepared {
            ask: None,
            blast_radius: None,
            description: format!(
                "Import {} file{} from “{root}” as datasets: {}. They are copied; the originals stay where they are.",
                paths.len(),
                if paths.len() == 1 { "" } else { "s" },
                paths.join(", ")
            ),
            resource: ResourceRef {
                kind: "files".to_owned(),
                id: format!("{root}:{}", paths.join(",")),
                display_name: root.to_owned(),
            },
            // A folder and pattern become the files they list now: a file that appears after the
            // approval is not imported with it.
            pinned: Some(json!({"root": root, "paths": paths})),
        })
    }
    /// A subset of the files, from the same folder.
    fn narrow(&self, approved: &Value, edited: &Value) -> Result<Value> {
        let bad = |m: &str| Error::new(crate::ErrorCode::BadRequest, m.to_owned()).with_field("edited_arguments_json");
        let files = |v: &Value| -> Option<Vec<String>> {
            v.get("paths")?.as_array()?.iter().map(|p| p.as_str().map(str::to_owned)).collect()
        };
        let Some(Value::Object(fields)) = Some(edited) else { return Err(bad("the edited arguments are an object")) };
        if fields.keys().any(|k| k != "root" && k != "paths") {
            return Err(bad("an import's edit may only list fewer `paths`"));
        }
        if edited.get("root").is_some_and(|r| Some(r) != approved.get("root")) {
            return Err(bad("an edit cannot change the folder an import reads from"));
        }
        let (Some(asked), Some(kept)) = (files(approved), files(edited)) else {
            return Err(bad("the edited arguments list `paths` as strings"));
        };
        if kept.is_empty() {
            return Err(bad("keep at least one file, or deny the import"));
        }
        if let Some(extra) = kept.iter().find(|p| !asked.contains(p)) {
            return Err(bad(&format!("{extra} was not in the list you were asked to approve")));
        }
        let mut unique = kept.clone();
        unique.sort();
        unique.dedup();
        if unique.len() != kept.len() {
            return Err(bad("a file is listed twice"));
        }
        Ok(json!({"root": approved.get("root").cloned().unwrap_or_default(), "paths": kept}))
    }
    /// Imports from the same approved folder.
    fn grant_class(&self, resource: &ResourceRef) -> Option<String> {
        Some(format!("files:{}", resource.display_name))
    }
    async fn execute(&self, ctx: &ToolContext, args: &Value) -> Result<ToolOutput> {
        let paths = import_paths(ctx, args).await?;
        let report = ctx.services.files.import(&ctx.caller, root_arg(args)?, &paths).await?;
        Ok(ToolOutput { llm_summary: summary::import_report(&report), rich: Some(RichResult::ImportReport { report }) })
    }
}
