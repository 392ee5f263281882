"""A small external MCP server over stdio, served by the official Python MCP SDK (`mcp` on PyPI):
a code host's issue tracker as a person might register it in aware. The e2e suite
(tests/rust/mcp_external.rs) registers it as `issues` to check that a request in plain words
reaches its tool by what the tool does, and an unrelated request does not.

Its tools:
- `search_issues` finds issues of the repository by words and state (canned issues, filtered for
  real: the words must appear in the title).
- `get_weather` looks up the weather of a city (a tool no data question is about).
"""

import json

import anyio

import mcp_types as types
from mcp.server.lowlevel.server import Server
from mcp.server.stdio import stdio_server

ISSUES = [
    {"number": 101, "title": "Login fails with two-factor codes", "state": "open"},
    {"number": 102, "title": "Login page slow on mobile", "state": "open"},
    {"number": 87, "title": "Login button misaligned", "state": "closed"},
    {"number": 120, "title": "Export to CSV drops the header", "state": "open"},
]

READ_ONLY = types.ToolAnnotations(read_only_hint=True, open_world_hint=False)


async def list_tools(ctx, params):
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name="search_issues",
                title="Search issues",
                description="Search the issues of the code repository by words in their title and by state (open or closed).",
                input_schema={
                    "type": "object",
                    "properties": {"query": {"type": "string"}, "state": {"type": "string", "enum": ["open", "closed"]}},
                    "required": ["query"],
                },
                annotations=READ_ONLY,
            ),
            types.Tool(
                name="get_weather",
                title="Weather",
                description="Look up today's weather forecast for a city.",
                input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
                annotations=READ_ONLY,
            ),
        ]
    )


async def call_tool(ctx, params):
    args = params.arguments or {}
    if params.name == "search_issues":
        words = str(args.get("query", "")).lower().split()
        state = args.get("state")
        found = [
            i for i in ISSUES if all(w in i["title"].lower() for w in words) and (state is None or i["state"] == state)
        ]
        return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(found))])
    if params.name == "get_weather":
        return types.CallToolResult(content=[types.TextContent(type="text", text="sunny, 21 °C")])
    return types.CallToolResult(content=[types.TextContent(type="text", text="no such tool")], is_error=True)


server = Server("issues", on_list_tools=list_tools, on_call_tool=call_tool)


async def main():
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


anyio.run(main)
