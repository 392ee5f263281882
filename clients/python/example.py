"""List your datasets and stream one assistant run: aware from Python, with aware-client.

    .tools/python/bin/python clients/python/example.py 127.0.0.1:50051 "average price by neighbourhood"

Tool results arrive before the answer that talks about them, so a table prints above the text.
"""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent / "src"))  # runs from a checkout, installed or not
from aware import AwareClient  # noqa: E402
from aware.v1 import run_pb2  # noqa: E402

addr, question = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "what are my files?"
with AwareClient(addr) as aware:
    for d in aware.datasets.list():
        print(f"dataset {d.table_name}: {d.row_count} rows")
    run = aware.chat(question)
    for event in run:  # every event once, in order, across reconnects
        if event.type == "text_delta":
            print(event.text, end="", flush=True)
        elif event.type == "tool_call_started":
            print(f"[{event.payload.title}]")
        elif event.type == "tool_result" and event.result.table is not None:
            table = event.result.table
            print(" | ".join(table.column_names))
            for row in table.rows:
                print(" | ".join("NULL" if v is None else str(v) for v in row))
        elif event.type == "run_completed":
            print(f"\nrun {run.run_id}: {run_pb2.RunStatus.Name(event.payload.status)}")
