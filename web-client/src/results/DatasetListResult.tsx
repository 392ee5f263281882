// `list_datasets`' result: each dataset (a document counted in passages) with a link to its page.
import type { DatasetList } from "@aware/client";
import { count } from "../lib/format";
import { AppLink } from "../lib/links";
import { ScrollBox } from "./ScrollBox";
import { documentKind, passagesText } from "./Sources";

export function DatasetListResult({ list }: { list: DatasetList }) {
  return (
    <ScrollBox label="Datasets">
      <table className="datasets-result">
        <thead>
          <tr><th>Dataset</th><th className="num">Rows</th><th className="num">Columns</th><th><span className="sr-only">Open</span></th></tr>
        </thead>
        <tbody>
          {list.datasets.map((d) => (
            <tr key={d.id}>
              <td>{d.tableName}{documentKind(d.format) && <span className="muted"> · {documentKind(d.format)}</span>}</td>
              <td className="num">{documentKind(d.format) ? passagesText(d.rowCount) : count(d.rowCount)}</td>
              <td className="num">{documentKind(d.format) ? "—" : d.columnCount}</td>
              <td><AppLink to={`/datasets/${d.id}`} aria-label={`Preview ${d.tableName}`}>Preview</AppLink></td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}
