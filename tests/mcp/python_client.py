"""A real MCP client nobody here wrote (the official Python SDK, `mcp` on PyPI) against aware's /mcp.

Usage: python_client.py ENDPOINT tour DATASET
         lists the tools, reads DATASET's resource, runs a query and a grouped one (whose top 3 it
         reads from the result's text alone, as a host's model would), then asks to delete DATASET
         and declines when aware asks (elicitation on the session)
       python_client.py ENDPOINT delete DATASET
         asks to delete DATASET with a client that cannot elicit: the call answers at once that a
         person must approve; the client then asks get_call_result until the outcome is there
       python_client.py ENDPOINT modern DATASET
         the same questions from a 2026-07-28 client (no initialize, no session): the grouped
         query's top 3 from text, then a delete of DATASET it declines through `input_required`;
         then a client that cannot elicit asks the same delete and follows get_call_result, and
         asks ask_aware to delete it
ENDPOINT is the server's /mcp URL, or `stdio:AWARE_CLI:GRPC_URL` to go through `aware mcp` (the
stdio relay a desktop client is configured with).
Prints one JSON object: what the client saw.
"""

import asyncio
import json
import sys
import time

from mcp import Client, ClientSession, types
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


def transport(endpoint):
    if endpoint.startswith("stdio:"):
        cli, server = endpoint[len("stdio:"):].split(":", 1)
        return stdio_client(StdioServerParameters(command=cli, args=["--server", server, "mcp"]))
    return streamable_http_client(endpoint)


def result_json(result):
    return {
        "is_error": bool(result.is_error),
        "text": " ".join(c.text for c in result.content if getattr(c, "type", "") == "text"),
        "structured": result.structured_content,
    }


def grouped_sql(dataset):
    return (
        f"SELECT region, round(sum(total_charges), 2) AS revenue FROM {dataset} "
        "GROUP BY region ORDER BY revenue DESC LIMIT 3"
    )


def rows_in_text(result):
    """The rows of the Markdown table in a result's text: what a host model reads, nothing else."""
    text = " ".join(c.text for c in result.content if getattr(c, "type", "") == "text")
    lines = [line for line in text.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines[1:]]


async def delete_until_answered(call_tool, dataset):
    """Asks to delete without being able to elicit: the answer comes at once; then the outcome is
    asked for until a person has answered in aware."""
    started = time.monotonic()
    first = await call_tool("delete_dataset", {"dataset": dataset})
    report = {"first": result_json(first), "first_seconds": time.monotonic() - started}
    structured = first.structured_content or {}
    if structured.get("type") == "pending_approval":
        for _ in range(600):
            await asyncio.sleep(0.1)
            later = await call_tool("get_call_result", {"run_id": structured["run_id"]})
            if (later.structured_content or {}).get("type") != "pending_approval":
                report["outcome"] = result_json(later)
                break
    return report


async def modern(url, dataset):
    asked = []

    async def decline(context, params):
        asked.append(params.message)
        return types.ElicitResult(action="decline")

    report = {}
    async with Client(url, mode="2026-07-28", elicitation_callback=decline) as client:
        report["protocol"] = client.protocol_version
        tools = await client.list_tools()
        report["tools"] = sorted(t.name for t in tools.tools)
        grouped = await client.call_tool("run_sql_query", {"sql": grouped_sql(dataset)})
        report["top3_from_text"] = rows_in_text(grouped)
        report["delete"] = result_json(await client.call_tool("delete_dataset", {"dataset": dataset}))
        report["asked"] = asked
    async with Client(url, mode="2026-07-28") as plain:
        report["without_elicitation"] = await delete_until_answered(plain.call_tool, dataset)
        # A whole agent run that comes to a delete answers the same way (the SDK checks the
        # answer against ask_aware's output schema).
        asked_aware = await plain.call_tool("ask_aware", {"question": f"delete the {dataset} dataset"})
        report["ask_aware_delete"] = result_json(asked_aware)
    return report


async def main(url, mode, dataset):
    if mode == "modern":
        print(json.dumps(await modern(url, dataset)))
        return
    asked = []

    async def decline(context, params):
        asked.append(params.message)
        return types.ElicitResult(action="decline")

    report = {}
    async with transport(url) as streams:
        read, write = streams[0], streams[1]
        callback = decline if mode == "tour" else None
        async with ClientSession(read, write, elicitation_callback=callback) as session:
            init = await session.initialize()
            report["server"] = init.server_info.name
            report["protocol"] = init.protocol_version
            if mode == "tour":
                tools = await session.list_tools()
                report["tools"] = {
                    t.name: {
                        "read_only": t.annotations.read_only_hint if t.annotations else None,
                        "destructive": t.annotations.destructive_hint if t.annotations else None,
                        "has_output_schema": t.output_schema is not None,
                    }
                    for t in tools.tools
                }
                resources = await session.list_resources()
                uri = next(str(r.uri) for r in resources.resources if r.name == dataset)
                report["resource_uri"] = uri
                contents = await session.read_resource(uri)
                report["resource"] = json.loads(contents.contents[0].text)
                sql = f"SELECT count(*) AS n, sum(CASE WHEN churned THEN 1 ELSE 0 END) AS churned FROM {dataset}"
                progress = []

                async def on_progress(done, total, message):
                    progress.append(message)

                query = await session.call_tool("run_sql_query", {"sql": sql}, progress_callback=on_progress)
                report["query"] = dict(result_json(query), progress=progress)
                grouped = await session.call_tool("run_sql_query", {"sql": grouped_sql(dataset)})
                report["top3_from_text"] = rows_in_text(grouped)
                asked_aware = await session.call_tool("ask_aware", {"question": "what are my files?"})
                report["ask_aware"] = result_json(asked_aware)
                prompt = await session.get_prompt("summarize_dataset", {"name": dataset})
                report["prompt"] = prompt.messages[0].content.text
            if mode == "tour":
                report["delete"] = result_json(await session.call_tool("delete_dataset", {"dataset": dataset}))
            else:
                report["delete"] = await delete_until_answered(session.call_tool, dataset)
            report["asked"] = asked
    print(json.dumps(report))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
