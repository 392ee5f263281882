"""List your datasets and stream one assistant run: aware from Python over gRPC.

    .tools/python/bin/python clients/python/example.py 127.0.0.1:50051 "what are my files?"
"""
import pathlib, sys
sys.path.insert(0, str(pathlib.Path(__file__).parent / "gen"))
import grpc
from aware.v1 import chat_pb2, chat_pb2_grpc, datasets_pb2, datasets_pb2_grpc, run_pb2

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
        elif kind == "run_completed":
            print(f"\nrun {sent.run_id}: {run_pb2.RunStatus.Name(response.event.run_completed.status)}")
