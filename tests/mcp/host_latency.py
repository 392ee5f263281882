"""How long an MCP host waits (BENCHMARKS §14): a grouped query, and a delete from a client that
cannot elicit (answered at once with `pending_approval`; each then denied with `aware approvals
deny`, as a waiting delete counts against the per-user cap of active runs).

Usage: .tools/python/bin/python tests/mcp/host_latency.py MCP_URL AWARE_CLI GRPC_URL [N]
e.g.   .tools/python/bin/python tests/mcp/host_latency.py http://127.0.0.1:50051/mcp \\
           ~/.cache/aware-target/debug/aware http://127.0.0.1:50051 40
"""

import asyncio
import statistics
import subprocess
import sys
import time

from mcp import Client

SQL = (
    "SELECT region, round(sum(total_charges), 2) AS revenue FROM customer_churn "
    "GROUP BY region ORDER BY revenue DESC LIMIT 3"
)


def line(mode, name, xs):
    xs = sorted(xs)
    n = len(xs)
    p90 = xs[max(0, int(n * 0.9) - 1)]
    return f"{mode:10} {name:24} n={n} p50 {statistics.median(xs):.1f} ms  p90 {p90:.1f} ms  max {xs[-1]:.1f} ms"


async def measure(url, cli, grpc, mode, n):
    async with Client(url, mode=mode) as client:
        queries, deletes = [], []
        for _ in range(n):
            started = time.monotonic()
            await client.call_tool("run_sql_query", {"sql": SQL})
            queries.append((time.monotonic() - started) * 1000)
        for _ in range(n):
            started = time.monotonic()
            result = await client.call_tool("delete_dataset", {"dataset": "barcelona_apartments"})
            deletes.append((time.monotonic() - started) * 1000)
            waiting = result.structured_content or {}
            assert waiting.get("type") == "pending_approval", result
            subprocess.run([cli, "--server", grpc, "approvals", "deny", waiting["confirmation_id"]], capture_output=True)
        print(line(mode, "grouped query", queries))
        print(line(mode, "delete answered pending", deletes))


def main():
    url, cli, grpc = sys.argv[1:4]
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 40
    for mode in ("2026-07-28", "legacy"):
        asyncio.run(measure(url, cli, grpc, mode, n))


if __name__ == "__main__":
    main()
