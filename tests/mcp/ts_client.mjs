// The official TypeScript MCP SDK (@modelcontextprotocol/sdk, installed in tests/mcp/node_modules
// with server-everything) as a host would use aware's /mcp: list the tools, read a grouped query's
// top 3 from the result's text alone, and ask for a delete it cannot approve (the SDK checks each
// structuredContent against the tool's outputSchema). Run with Node >= 22 (.tools/bin/node24).
//
// Usage: node24 tests/mcp/ts_client.mjs MCP_URL   — prints one JSON object: what the client saw.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const client = new Client({ name: "ts-host", version: "1" });
await client.connect(new StreamableHTTPClientTransport(new URL(process.argv[2])));
const { tools } = await client.listTools();
const sql =
  "SELECT region, round(sum(total_charges), 2) AS revenue FROM customer_churn GROUP BY region ORDER BY revenue DESC LIMIT 3";
const grouped = await client.callTool({ name: "run_sql_query", arguments: { sql } });
const rows = grouped.content[0].text
  .split("\n")
  .filter((line) => line.startsWith("| "))
  .slice(1)
  .map((line) => line.slice(2, -2).split(" | ").map((cell) => cell.trim()));
const deleting = await client.callTool({ name: "delete_dataset", arguments: { dataset: "support_tickets" } });
await client.close();
console.log(
  JSON.stringify({
    ask_aware: tools.find((t) => t.name === "ask_aware")?.annotations,
    top3_from_text: rows,
    delete: { is_error: deleting.isError ?? false, structured: deleting.structuredContent },
  }),
);
