// `list_directory`'s result: the files of an approved folder, with the format each imports as.
import { DatasetFormat, EntryKind, type DirectoryListing as Listing } from "@aware/client";
import { formatBytes } from "../lib/format";
import { ScrollBox } from "./ScrollBox";

export function DirectoryListing({ listing }: { listing: Listing }) {
  return (
    <ScrollBox label="Files">
      <table className="listing-result">
        <thead><tr><th>Name</th><th>Kind</th><th className="num">Size</th><th>Imports as</th></tr></thead>
        <tbody>
          {listing.entries.map((e) => (
            <tr key={e.path}>
              <td>{e.path}</td>
              <td>{EntryKind[e.kind].toLowerCase()}</td>
              <td className="num">{e.kind === EntryKind.FILE ? formatBytes(e.sizeBytes) : ""}</td>
              <td>{e.importableFormat ? DatasetFormat[e.importableFormat].toLowerCase() : ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollBox>
  );
}
