//! The policy gate: the one place that decides which tools a request is offered and whether a
//! tool call may run. Its inputs are the caller's role, the deployment mode, the router's reading
//! of the request (intent and confidence) and each tool's metadata (capability, intents). A model
//! never decides: it only sees what the gate offers, and every call it makes is checked again
//! here, returning a typed [`Refusal`] whose text is what the model reads.
//!
//! New kinds of tools plug in through their metadata ([`ToolMeta`]): a tool that declares its
//! capability and the intents it serves is gated like every other, without a change here or in
//! the driver.
//!
//! Authorisation is decided at the moment of effect ([`Policy::may_still`]): a run is gated by
//! the role its owner had when it started, and each of its calls again by how the owner stands
//! when it would take effect — as a person's approval arrives, just before an approved call's
//! side effect, and whenever a session grant is used or listed. A demoted owner, a deactivated
//! one, or a run whose API key was revoked since, gets no more done.

use crate::runs::router::{CONFIDENT, Intent, Route};
use crate::runs::tools::{ExternalServer, ExternalTools, NoExternalTools};
use crate::runs::tools::{Gate, Tool, ToolId, ToolMeta, ToolRegistry};
use aware_domain::auth::{Caller, Role, Standing};
use std::sync::Arc;

pub use aware_domain::auth::DeploymentMode;

/// Why a tool call was not run. Its `Display` is the tool result the model reads
/// (`runs::model_view::outcomes`); [`Refusal::code`] is what clients get (`ToolDenied.code`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The model named a tool that does not exist.
    NoSuchTool(String),
    /// An external tool its server's configuration maps to no scope: denied by default.
    ScopeNotMapped(String),
    /// The caller's role lacks the tool's capability (or its scope's least role).
    NotForRole(String),
    /// An external tool whose scope is not granted in this deployment mode.
    ScopeNotAllowedEnvironment(String),
    /// The deployment mode or this request's intent does not offer the tool.
    NotForThisRequest(String),
    /// The run already made its allowed number of tool calls.
    CallLimit(u32),
    /// The tool's owner no longer may: demoted, deactivated, or the run's key revoked since the
    /// run started.
    Withdrawn(String, Withdrawal),
}

/// What took a run's owner's access away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Withdrawal {
    /// Their role is now this one, which does not allow the tool.
    Demoted(Role),
    /// They are deactivated (or gone).
    Deactivated,
    /// The API key the run was started with is revoked (or expired).
    KeyRevoked,
}

impl Refusal {
    /// The reason as a code.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NoSuchTool(_) => "no_such_tool",
            Self::ScopeNotMapped(_) => "scope_not_mapped",
            Self::NotForRole(_) => "role_not_allowed",
            Self::ScopeNotAllowedEnvironment(_) => "scope_not_allowed_environment",
            Self::NotForThisRequest(_) => "not_for_this_request",
            Self::CallLimit(_) => "call_limit",
            Self::Withdrawn(_, Withdrawal::Demoted(_)) => "role_not_allowed",
            Self::Withdrawn(_, Withdrawal::Deactivated) => "user_deactivated",
            Self::Withdrawn(_, Withdrawal::KeyRevoked) => "key_revoked",
        }
    }
}

/// The gate, with the tools it governs: this build's, and the external servers' as they are now.
#[derive(Clone)]
pub struct Policy {
    tools: ToolRegistry,
    external: Arc<dyn ExternalTools>,
    mode: DeploymentMode,
    max_tool_calls: u32,
}

impl Policy {
    pub fn new(tools: ToolRegistry, mode: DeploymentMode, max_tool_calls: u32) -> Self {
        Self { tools, external: Arc::new(NoExternalTools), mode, max_tool_calls }
    }

    /// The gate over external MCP servers' tools too.
    pub fn with_external(mut self, external: Arc<dyn ExternalTools>) -> Self {
        self.external = external;
        self
    }

    pub fn mode(&self) -> DeploymentMode {
        self.mode
    }

    /// The registered external servers and their state.
    pub fn external_servers(&self) -> Vec<ExternalServer> {
        self.external.servers()
    }

    fn all(&self) -> Vec<Arc<dyn Tool>> {
        let mut all: Vec<Arc<dyn Tool>> = self.tools.all().cloned().collect();
        all.extend(self.external.tools());
        all
    }

    /// Every tool there is now, whatever the caller (for titles and risk of a call's events).
    pub fn tool(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.tools
            .get(name)
            .cloned()
            .or_else(|| self.external.tools().into_iter().find(|t| t.meta().name.as_str() == name))
    }

    fn role_allows(role: Role, meta: &ToolMeta) -> bool {
        match &meta.gate {
            Gate::Capability(c) => role.allows(*c),
            Gate::Scope(Some(grant)) => role >= grant.min_role,
            Gate::Scope(None) => false,
        }
    }

    fn mode_permits(&self, meta: &ToolMeta) -> bool {
        match &meta.gate {
            Gate::Capability(c) => self.mode.permits(*c),
            Gate::Scope(Some(grant)) => grant.modes.contains(&self.mode),
            Gate::Scope(None) => false,
        }
    }

    /// A builtin serves the intents it lists; an external tool is offered when the request names
    /// a tool outright or was linked to it by what it does. When the router is not confident,
    /// everything is offered.
    fn route_offers(route: &Route, meta: &ToolMeta) -> bool {
        route.confidence < CONFIDENT
            || match meta.name {
                ToolId::Builtin(_) => meta.intents.contains(&route.intent),
                ToolId::External { .. } => {
                    route.intent == Intent::ExternalTool || route.linked_tools.iter().any(|t| t == meta.name.as_str())
                }
            }
    }

    /// The external servers' tools this caller may use here (role and mode): what a request may
    /// be linked to by meaning.
    pub fn external_for(&self, caller: &Caller) -> Vec<Arc<dyn Tool>> {
        self.external
            .tools()
            .into_iter()
            .filter(|t| Self::role_allows(caller.principal.role, t.meta()) && self.mode_permits(t.meta()))
            .collect()
    }

    /// The tools this request is offered: the role's, in this mode, narrowed to the intent's
    /// tools when the router is confident.
    pub fn offered(&self, caller: &Caller, route: &Route) -> Vec<Arc<dyn Tool>> {
        self.all()
            .into_iter()
            .filter(|t| {
                let meta = t.meta();
                Self::role_allows(caller.principal.role, meta)
                    && self.mode_permits(meta)
                    && Self::route_offers(route, meta)
            })
            .collect()
    }

    /// The tools a caller may use in this deployment whatever the request (the capabilities a
    /// client is told about).
    pub fn available(&self, caller: &Caller) -> Vec<Arc<dyn Tool>> {
        self.offered(caller, &Route::undecided())
    }

    /// The tools the role allows that this request is not offered (mode or intent).
    pub fn withheld(&self, caller: &Caller, route: &Route) -> Vec<Arc<dyn Tool>> {
        let offered: Vec<String> =
            self.offered(caller, route).iter().map(|t| t.meta().name.as_str().to_owned()).collect();
        self.all()
            .into_iter()
            .filter(|t| {
                Self::role_allows(caller.principal.role, t.meta())
                    && !offered.iter().any(|o| o == t.meta().name.as_str())
            })
            .collect()
    }

    /// Whether a call the model made may run: the tool exists, (an external one) maps to a
    /// scope, the role allows it, the mode grants it, this request offers it, and the run has
    /// calls left (`calls_so_far` made before this one).
    pub fn check(
        &self,
        caller: &Caller,
        route: &Route,
        name: &str,
        calls_so_far: u32,
    ) -> Result<Arc<dyn Tool>, Refusal> {
        let tool = self.tool(name).ok_or_else(|| Refusal::NoSuchTool(name.to_owned()))?;
        let meta = tool.meta();
        let named = || meta.name.as_str().to_owned();
        if meta.gate == Gate::Scope(None) {
            return Err(Refusal::ScopeNotMapped(named()));
        }
        if !Self::role_allows(caller.principal.role, meta) {
            return Err(Refusal::NotForRole(named()));
        }
        if !self.mode_permits(meta) {
            return Err(match meta.gate {
                Gate::Scope(_) => Refusal::ScopeNotAllowedEnvironment(named()),
                Gate::Capability(_) => Refusal::NotForThisRequest(named()),
            });
        }
        if !Self::route_offers(route, meta) {
            return Err(Refusal::NotForThisRequest(named()));
        }
        if calls_so_far >= self.max_tool_calls {
            return Err(Refusal::CallLimit(self.max_tool_calls));
        }
        Ok(tool)
    }

    /// Whether a call of `meta`'s tool may still take effect for an owner standing as `now`, in
    /// a run started as `started_as` (`None`: no run, as for a session grant listed): the one rule
    /// for an approval as it arrives, for a call just before its effect, and for a session grant.
    /// A run never gains a role on its way (a promotion counts from the owner's next run) and
    /// loses one at once.
    pub fn may_still(meta: &ToolMeta, started_as: Option<Role>, now: Standing) -> Result<(), Refusal> {
        let named = || meta.name.as_str().to_owned();
        let role = match now {
            Standing::Active(role) => started_as.map_or(role, |started| role.min(started)),
            Standing::Inactive => return Err(Refusal::Withdrawn(named(), Withdrawal::Deactivated)),
            Standing::KeyWithdrawn => return Err(Refusal::Withdrawn(named(), Withdrawal::KeyRevoked)),
        };
        if Self::role_allows(role, meta) { Ok(()) } else { Err(Refusal::Withdrawn(named(), Withdrawal::Demoted(role))) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runs::router::{Intent, route};
    use crate::runs::tools::ToolName;
    use aware_domain::auth::{Principal, Role, Source};
    use aware_domain::ids::UserId;

    fn caller(role: Role) -> Caller {
        let principal = Principal { user_id: UserId::local(), name: String::new(), role, key: None };
        Caller { principal, source: Source::Api }
    }

    fn names(tools: Vec<Arc<dyn Tool>>) -> Vec<String> {
        let mut v: Vec<String> = tools.iter().map(|t| t.meta().name.as_str().to_owned()).collect();
        v.sort_unstable();
        v
    }

    fn sorted<const N: usize>(v: [&'static str; N]) -> Vec<String> {
        let mut v: Vec<String> = v.iter().map(|s| (*s).to_owned()).collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn each_intent_is_offered_exactly_its_tools() {
        let policy = Policy::new(ToolRegistry::standard(), DeploymentMode::Local, 5);
        let admin = caller(Role::Admin);
        let cases: [(&str, Intent, Vec<String>); 16] = [
            ("what CSV files are in my downloads?", Intent::FileBrowse, sorted(["list_directory", "remember"])),
            (
                "import those",
                Intent::FileImport,
                sorted(["list_directory", "import_files", "refresh_dataset", "remember"]),
            ),
            (
                "what am I looking at?",
                Intent::DatasetLookup,
                sorted(["list_datasets", "get_dataset_detail", "execute_query_plan", "ask_user", "remember"]),
            ),
            (
                "what are my files?",
                Intent::DatasetLookup,
                sorted(["list_datasets", "get_dataset_detail", "execute_query_plan", "ask_user", "remember"]),
            ),
            (
                "show me the apartments",
                Intent::Preview,
                sorted([
                    "list_datasets",
                    "get_dataset_detail",
                    "preview_rows",
                    "execute_query_plan",
                    "ask_user",
                    "remember",
                ]),
            ),
            (
                "average price by neighbourhood",
                Intent::Query,
                sorted([
                    "list_datasets",
                    "get_dataset_detail",
                    "run_sql_query",
                    "execute_query_plan",
                    "ask_user",
                    "remember",
                ]),
            ),
            (
                "profile customer churn",
                Intent::Statistics,
                sorted(["list_datasets", "get_dataset_detail", "get_dataset_statistics", "remember"]),
            ),
            (
                "delete the churn dataset",
                Intent::DatasetAdmin,
                sorted(["list_datasets", "get_dataset_detail", "delete_dataset", "remember"]),
            ),
            (
                "refresh the support tickets dataset",
                Intent::DatasetEdit,
                sorted([
                    "list_datasets",
                    "get_dataset_detail",
                    "rename_dataset",
                    "describe_dataset",
                    "save_query_as_dataset",
                    "save_query",
                    "delete_saved_query",
                    "refresh_dataset",
                    "remember",
                ]),
            ),
            ("system status", Intent::SystemStatus, sorted(["get_system_status", "remember"])),
            ("what happened in run_01ab?", Intent::RunLookup, sorted(["get_run_status", "remember"])),
            ("what is in the downloads folder", Intent::FileBrowse, sorted(["list_directory", "remember"])),
            (
                "search the tickets for refunds",
                Intent::Search,
                sorted(["search_datasets", "search_knowledge", "list_datasets", "get_dataset_detail", "remember"]),
            ),
            ("what does the handbook say about refunds?", Intent::Knowledge, sorted(["search_knowledge", "remember"])),
            // Said in so many words: stored after the run without asking, so `remember` is not
            // offered; forgetting asks.
            ("remember that our fiscal year starts in April", Intent::Memory, sorted(["forget_memory"])),
            ("forget that our fiscal year starts in April", Intent::Memory, sorted(["forget_memory"])),
        ];
        for (text, intent, tools) in cases {
            let r = route(text);
            assert_eq!(r.intent, intent, "{text}");
            assert_eq!(names(policy.offered(&admin, &r)), tools, "{text}");
            let withheld = names(policy.withheld(&admin, &r));
            assert_eq!(withheld.len() + tools.len(), ToolName::ALL.len(), "{text}: {withheld:?}");
        }
    }

    #[test]
    fn a_guess_does_not_narrow_and_connected_mode_has_no_file_tools() {
        let admin = caller(Role::Admin);
        let local = Policy::new(ToolRegistry::standard(), DeploymentMode::Local, 5);
        let connected = Policy::new(ToolRegistry::standard(), DeploymentMode::Connected, 5);
        let guess = route("zxq blorp");
        assert!(guess.confidence < CONFIDENT);
        assert_eq!(local.offered(&admin, &guess).len(), ToolName::ALL.len());
        let offered = names(connected.offered(&admin, &guess));
        let file_tools = ["list_directory", "import_files", "refresh_dataset"];
        assert!(!offered.iter().any(|n| file_tools.contains(&n.as_str())), "{offered:?}");
        assert_eq!(offered.len(), ToolName::ALL.len() - file_tools.len());
        assert_eq!(names(connected.offered(&admin, &route("import the files in my folder"))), ["remember"]);
        assert_eq!(names(connected.available(&admin)), offered);
        assert_eq!(
            connected.check(&admin, &guess, "list_directory", 0).err(),
            Some(Refusal::NotForThisRequest("list_directory".into()))
        );
    }

    #[test]
    fn a_call_is_refused_for_one_typed_reason_in_a_fixed_order() {
        let policy = Policy::new(ToolRegistry::standard(), DeploymentMode::Local, 2);
        let viewer = caller(Role::Viewer);
        let admin = caller(Role::Admin);
        let query = route("average price by neighbourhood");
        let refusal = |c: &Caller, name: &str, n: u32| policy.check(c, &query, name, n).err();
        assert_eq!(refusal(&admin, "drop_everything", 0), Some(Refusal::NoSuchTool("drop_everything".into())));
        // The role comes before the request: a viewer is never told deleting would fit another request.
        assert_eq!(refusal(&viewer, "delete_dataset", 0), Some(Refusal::NotForRole("delete_dataset".into())));
        assert_eq!(refusal(&admin, "delete_dataset", 0), Some(Refusal::NotForThisRequest("delete_dataset".into())));
        assert_eq!(refusal(&admin, "run_sql_query", 2), Some(Refusal::CallLimit(2)));
        assert_eq!(refusal(&viewer, "run_sql_query", 1), None);
        let viewer_tools = names(policy.available(&viewer));
        assert!(
            !viewer_tools.iter().any(|n| n == "delete_dataset") && viewer_tools.iter().any(|n| n == "run_sql_query")
        );
    }

    #[test]
    fn a_call_takes_effect_only_while_its_owner_still_may() {
        let tools = ToolRegistry::standard();
        let create_user = tools.get("create_user").expect("a tool").meta();
        let preview = tools.get("preview_rows").expect("a tool").meta();
        assert_eq!(Policy::may_still(create_user, Some(Role::Admin), Standing::Active(Role::Admin)), Ok(()));
        let demoted = Policy::may_still(create_user, Some(Role::Admin), Standing::Active(Role::Viewer)).unwrap_err();
        assert_eq!((demoted.code(), demoted.to_string().contains("viewer")), ("role_not_allowed", true));
        // A promotion counts from the next run: this one keeps the role it started with.
        let promoted = Policy::may_still(create_user, Some(Role::Analyst), Standing::Active(Role::Admin)).unwrap_err();
        assert_eq!(promoted, Refusal::Withdrawn("create_user".into(), Withdrawal::Demoted(Role::Analyst)));
        assert_eq!(
            Policy::may_still(create_user, None, Standing::Active(Role::Admin)),
            Ok(()),
            "no run: as they are now"
        );
        assert_eq!(Policy::may_still(preview, Some(Role::Admin), Standing::Active(Role::Viewer)), Ok(()));
        for (now, code) in [(Standing::Inactive, "user_deactivated"), (Standing::KeyWithdrawn, "key_revoked")] {
            assert_eq!(Policy::may_still(preview, None, now).unwrap_err().code(), code);
        }
    }

    #[test]
    fn modes_spell_as_configured() {
        for m in DeploymentMode::ALL {
            assert_eq!(DeploymentMode::parse(m.as_str()), Some(m));
        }
        assert_eq!(DeploymentMode::parse("Local"), None);
    }
}
