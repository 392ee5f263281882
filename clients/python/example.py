"""List your datasets and stream one assistant run: aware from Python over gRPC.

    .tools/python/bin/python clients/python/example.py 127.0.0.1:50051 "average price by neighbourhood"

Tool results arrive before the answer that talks about them, so a table prints above the text.
"""
import pathlib, sys
sys.path.insert(0, str(pathlib.Path(__file__).parent / "gen"))
import grpc
from aware.v1 import chat_pb2, chat_pb2_grpc, datasets_pb2, datasets_pb2_grpc, run_pb2


def cell(value):
    kind = value.WhichOneof("kind")
    return "NULL" if kind in (None, "null_value") else str(getattr(value, kind))


addr, question = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "what are my files?"
with grpc.insecure_channel(addr) as channel:
    for d in datasets_pb2_grpc.DatasetsServiceStub(channel).ListDatasets(datasets_pb2.ListDatasetsRequest()).datasets:
        print(f"dataset {d.table_name}: {d.row_count} rows")
    chat = chat_pb2_grpc.ChatServiceStub(channel)
    sent = chat.SendMessage(chat_pb2.SendMessageRequest(message=chat_pb2.UserMessage(text=question)))
    for response in chat.StreamRun(chat_pb2.StreamRunRequest(run_id=sent.run_id)):
        kind = response.event.WhichOneof("payload")
        if kind == "text_delta":
            print(response.event.text_delta.delta, end="", flush=True)
        elif kind == "tool_call_started":
            print(f"[{response.event.tool_call_started.title}]")
        elif kind == "tool_result" and response.event.tool_result.WhichOneof("rich") == "table":
            table = response.event.tool_result.table
            print(" | ".join(c.name for c in table.columns))
            for row in table.rows:
                print(" | ".join(cell(v) for v in row.values))
        elif kind == "run_completed":
            print(f"\nrun {sent.run_id}: {run_pb2.RunStatus.Name(response.event.run_completed.status)}")
