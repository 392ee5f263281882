// `import_files`' result: each file, the dataset it became (a link to it) or why it did not.
import type { ImportReport as Report } from "@aware/client";
import { count } from "../lib/format";
import { AppLink } from "../lib/links";

export function ImportReport({ report }: { report: Report }) {
  return (
    <ul className="import-report">
      {report.files.map((f) => (
        <li key={f.path} className={f.error ? "error" : ""}>
          {f.dataset ? (
            <>✓ {f.path} → <AppLink to={`/datasets/${f.dataset.id}`}>{f.dataset.tableName}</AppLink> ({count(f.dataset.rowCount)} rows)</>
          ) : (
            <>✗ {f.path}: {f.error?.message}</>
          )}
        </li>
      ))}
    </ul>
  );
}
