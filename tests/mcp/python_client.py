"""A real MCP client nobody here wrote (the official Python SDK, `mcp` on PyPI) against aware's /mcp.

Usage: python_client.py ENDPOINT tour DATASET
         lists the tools, reads DATASET's resource, runs a query, then asks to delete DATASET and
         declines when aware asks (elicitation)
       python_client.py ENDPOINT delete DATASET
         asks to delete DATASET with a client that cannot elicit: the call waits for a person to
         answer in aware itself
ENDPOINT is the server's /mcp URL, or `stdio:AWARE_CLI:GRPC_URL` to go through `aware mcp` (the
stdio relay a desktop client is configured with).
Prints one JSON object: what the client saw.
"""

import asyncio
import json
import sys

from mcp import ClientSession, types
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


async def main(url, mode, dataset):
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
                asked_aware = await session.call_tool("ask_aware", {"question": "what are my files?"})
                report["ask_aware"] = result_json(asked_aware)
                prompt = await session.get_prompt("summarize_dataset", {"name": dataset})
                report["prompt"] = prompt.messages[0].content.text
            report["delete"] = result_json(await session.call_tool("delete_dataset", {"dataset": dataset}))
            report["asked"] = asked
    print(json.dumps(report))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
