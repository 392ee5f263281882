#!/usr/bin/env bash
# Every RPC of aware.v1 through grpcurl and server reflection — no .proto files — as an operator
# would call it. Usage: tests/grpcurl/every-rpc.sh HOST:PORT  (run by tests/rust/grpcurl.rs).
# With AWARE_IMPORT_DIR set to the server's staging folder (`<data dir>/import`), a file imported
# from it is refreshed too.
# Each step prints what it called; any unexpected answer stops the script with a non-zero exit.
set -euo pipefail
addr=${1:?usage: every-rpc.sh HOST:PORT}
here=$(cd "$(dirname "$0")" && pwd)
grpcurl=${GRPCURL:-$here/../../.tools/bin/grpcurl}
call() { local method=$1 data=$2; echo "== $method" >&2; "$grpcurl" -plaintext -max-time 60 -d "$data" "$addr" "aware.v1.$method"; }
# A field of the JSON answer on stdin: json 'expression over d'
json() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }
expect() { [ "$1" = "$2" ] || { echo "expected $2, got $1 ($3)" >&2; exit 1; }; }
# Expects a failure with grpcurl's exit code 64 + gRPC code.
expect_code() {
  local want=$1; shift
  set +e; "$grpcurl" -plaintext -max-time 60 "$@" >/dev/null 2>&1; local rc=$?; set -e
  expect "$rc" "$want" "grpcurl $*"
}

# Discovery.
for svc in ChatService DatasetsService QueryService RunsService FilesService ThreadsService MemoryService AuditService AdminService; do
  "$grpcurl" -plaintext "$addr" describe "aware.v1.$svc" >/dev/null
done

# DatasetsService.
rows='city,visits\nBarcelona,3\nGirona,5\nReus,1\n'
size=$(printf "$rows" | wc -c)
up=$(call DatasetsService/UploadDataset "{\"filename\":\"recipe_cities.csv\",\"size_bytes\":$size,\"chunk\":\"$(printf "$rows" | base64 -w0)\"}")
ds=$(echo "$up" | json 'd["dataset"]["id"]')
expect "$(call DatasetsService/GetDataset "{\"dataset_id\":\"$ds\"}" | json 'd["dataset"]["rowCount"]')" 3 GetDataset
expect "$(call DatasetsService/ListDatasets '{}' | json 'len(d["datasets"])')" 4 ListDatasets
expect "$(call DatasetsService/PreviewRows "{\"dataset_id\":\"$ds\",\"limit\":2}" | json 'len(d["table"]["rows"])')" 2 PreviewRows
expect "$(call DatasetsService/GetDatasetStatistics "{\"dataset_id\":\"$ds\"}" | json 'd["statistics"]["rowCount"]')" 3 GetDatasetStatistics
upload=$(call DatasetsService/CreateUpload '{"filename":"recipe_chunks.csv","size_bytes":12}' | json 'd["uploadId"]')
call DatasetsService/AppendUpload "{\"upload_id\":\"$upload\",\"offset\":0,\"chunk\":\"$(printf 'a,b\n1,' | base64 -w0)\"}" >/dev/null
call DatasetsService/AppendUpload "{\"upload_id\":\"$upload\",\"offset\":6,\"chunk\":\"$(printf '2\n3,4\n' | base64 -w0)\"}" >/dev/null
chunked=$(call DatasetsService/CommitUpload "{\"upload_id\":\"$upload\"}")
expect "$(echo "$chunked" | json 'd["dataset"]["rowCount"]')" 2 CommitUpload
call DatasetsService/DeleteDataset "{\"dataset_id\":\"$(echo "$chunked" | json 'd["dataset"]["id"]')\"}" >/dev/null
# Search (the samples' tickets are indexed in the background at start: give it a moment).
for _ in $(seq 100); do
  marked=$(call DatasetsService/SearchDatasets '{"query":"password reset","limit":3}' \
    | json '"<mark>password</mark>" in d["hits"][0]["snippet"].lower() if d.get("hits") else False')
  [ "$marked" = True ] && break; sleep 0.1
done
expect "$marked" True SearchDatasets
expect_code 67 -d '{"query":"login","mode":"fuzzy"}' "$addr" aware.v1.DatasetsService/SearchDatasets

# QueryService.
sql=$(call QueryService/ExecuteSql '{"sql":"SELECT sum(visits) AS v FROM recipe_cities"}')
expect "$(echo "$sql" | json 'list(d["table"]["rows"][0]["values"][0].values())[0]')" 9 ExecuteSql
# RerunQuery: the same query again, on unchanged data, gives the recorded result hash.
expect "$(call RunsService/RerunQuery "{\"run_id\":\"$(echo "$sql" | json 'd["runId"]')\"}" | json 'd["queries"][0]["resultSha256"] == d["queries"][0]["recordedSha256"]')" True RerunQuery
plan='{"plan":{"dataset":"recipe_cities","select":[{"aggregate":"AGGREGATE_MAX","column":"visits","alias":"top"}]}}'
expect "$(call QueryService/ExecuteQueryPlan "$plan" | json 'list(d["table"]["rows"][0]["values"][0].values())[0]')" 5 ExecuteQueryPlan
expect_code 67 -d '{"sql":"SELECT * FROM read_csv(\"/etc/passwd\")"}' "$addr" aware.v1.QueryService/ExecuteSql

# ChatService: a bidi session from a file of JSON messages (Hello, a UI snapshot, two messages).
session=$("$grpcurl" -plaintext -max-time 60 -d @ "$addr" aware.v1.ChatService/Chat < "$here/chat-session.json")
expect "$(echo "$session" | grep -c '"runCompleted"')" 2 "Chat: two runs completed"
expect "$(echo "$session" | grep -c '"stateApplied"')" 1 "Chat: the snapshot was applied"
expect "$(call ChatService/GetCapabilities '{}' | json 'd["protocolVersion"]')" 1 GetCapabilities
expect "$(call ChatService/UpdateState '{"snapshot":{"thread_id":"recipe","ui_state_version":2,"current_route":"/datasets/'"$ds"'","active_dataset_id":"'"$ds"'"}}' | json 'd["uiStateVersion"]')" 2 UpdateState
sent=$(call ChatService/SendMessage '{"client_msg_id":"recipe-msg-3","message":{"thread_id":"recipe","text":"delete the recipe cities dataset"}}')
run=$(echo "$sent" | json 'd["runId"]')
confirmation() {
  for _ in $(seq 200); do
    c=$(call RunsService/ListRunEvents "{\"run_id\":\"$1\"}" 2>/dev/null \
      | json 'next((e["confirmationRequired"]["confirmationId"] for e in d.get("events", []) if "confirmationRequired" in e), "")')
    [ -n "$c" ] && { echo "$c"; return; }
    sleep 0.05
  done
  echo "no confirmation for $1" >&2; exit 1
}
cid=$(confirmation "$run")
expect "$(call ChatService/ListPendingConfirmations '{}' | json '[c["confirmationId"] for c in d["confirmations"]][0]')" "$cid" ListPendingConfirmations
expect "$(call ChatService/SubmitConfirmation "{\"confirmation_id\":\"$cid\",\"approved\":false}" | json 'd["resolution"]')" CONFIRMATION_RESOLUTION_DENIED SubmitConfirmation
expect "$(call ChatService/StreamRun "{\"run_id\":\"$run\",\"after_seq\":0}" | grep -c '"runCompleted"')" 1 StreamRun
run2=$(call ChatService/SendMessage '{"client_msg_id":"recipe-msg-4","message":{"thread_id":"recipe","text":"delete the recipe cities dataset"}}' | json 'd["runId"]')
confirmation "$run2" >/dev/null
expect "$(call ChatService/CancelRun "{\"run_id\":\"$run2\"}" | json 'd["status"]')" RUN_STATUS_CANCELLED CancelRun
# A question back: "charges" is monthly_charges or total_charges; the choice resumes the same run.
run4=$(call ChatService/SendMessage '{"client_msg_id":"recipe-msg-6","message":{"thread_id":"recipe-ask","text":"what is the average charges?"}}' | json 'd["runId"]')
for _ in $(seq 200); do
  q=$(call RunsService/ListRunEvents "{\"run_id\":\"$run4\"}" 2>/dev/null \
    | json 'next((e["clarificationRequired"]["clarificationId"] for e in d.get("events", []) if "clarificationRequired" in e), "")')
  [ -n "$q" ] && break; sleep 0.05
done
expect_code 67 -d "{\"clarification_id\":\"$q\",\"choice\":\"plan\"}" "$addr" aware.v1.ChatService/SubmitClarification
expect "$(call ChatService/SubmitClarification "{\"clarification_id\":\"$q\",\"choice\":\"monthly_charges\"}" | json 'd["runId"]')" "$run4" SubmitClarification
expect "$(call ChatService/StreamRun "{\"run_id\":\"$run4\",\"after_seq\":0}" | grep -c '"clarificationResolved"')" 1 "StreamRun: the clarification was answered"

# RunsService.
expect "$(call RunsService/GetRun "{\"run_id\":\"$run\"}" | json 'd["run"]["question"]')" "delete the recipe cities dataset" GetRun
expect "$(call RunsService/ListRuns '{"thread_id":"recipe","page_size":2}' | json 'len(d["runs"])')" 2 ListRuns
expect "$(call RunsService/GetRunTrace "{\"run_id\":\"$run\"}" | json 'sorted({s["kind"] for s in d["spans"]})')" "['confirmation_wait', 'model_call', 'run']" GetRunTrace
expect "$(call RunsService/GetUsage '{}' | json 'd["runs"] >= 4')" True GetUsage
expect "$(call RunsService/SubmitFeedback "{\"run_id\":\"$run\",\"rating\":\"FEEDBACK_RATING_UP\",\"reason\":\"asked first\"}" | json 'd["feedback"]["rating"]')" FEEDBACK_RATING_UP SubmitFeedback
expect "$(call RunsService/ListRuns '{"thread_id":"recipe","rating":"FEEDBACK_RATING_UP"}' | json '[r["runId"] for r in d["runs"]]')" "['$run']" "ListRuns rated UP"

# Session grants: an ELEVATED delete is approved once, never for a session (PERMISSION_DENIED).
run3=$(call ChatService/SendMessage '{"client_msg_id":"recipe-msg-5","message":{"thread_id":"recipe","text":"delete the recipe cities dataset"}}' | json 'd["runId"]')
cid3=$(confirmation "$run3")
expect_code 71 -d "{\"confirmation_id\":\"$cid3\",\"approved\":true,\"scope\":\"CONFIRMATION_SCOPE_SESSION\"}" "$addr" aware.v1.ChatService/SubmitConfirmation
call ChatService/SubmitConfirmation "{\"confirmation_id\":\"$cid3\",\"approved\":false}" >/dev/null
expect "$(call ChatService/ListGrants '{}' | json 'len(d.get("grants", []))')" 0 ListGrants
expect_code 69 -d '{"grant_id":"gr_0123456789abcdef0123456789abcdef"}' "$addr" aware.v1.ChatService/RevokeGrant

# ThreadsService: the recipe thread, reopened, renamed, forked at its denied delete.
expect "$(call ThreadsService/ListThreads '{}' | json '"recipe" in [t["threadId"] for t in d["threads"]]')" True ListThreads
expect "$(call ThreadsService/GetThread '{"thread_id":"recipe"}' | json '[t["runId"] for t in d["turns"]].index("'"$run"'") >= 1')" True GetThread
expect "$(call ThreadsService/RenameThread '{"thread_id":"recipe","title":"Recipe book"}' | json 'd["thread"]["title"]')" "Recipe book" RenameThread
fork=$(call ThreadsService/ForkThread "{\"run_id\":\"$run\"}")
expect "$(echo "$fork" | json 'd["userText"]')" "delete the recipe cities dataset" ForkThread
expect "$(call ThreadsService/DeleteThread "{\"thread_id\":\"$(echo "$fork" | json 'd["thread"]["threadId"]')\"}" | json 'd["runsDeleted"] >= 1')" True DeleteThread

# MemoryService.
mem=$(call MemoryService/AddMemory '{"text":"our fiscal year starts in April"}' | json 'd["memory"]["memoryId"]')
expect "$(call MemoryService/ListMemories '{}' | json '[m["text"] for m in d["memories"]]')" "['our fiscal year starts in April']" ListMemories
call MemoryService/DeleteMemory "{\"memory_id\":\"$mem\"}" >/dev/null
expect "$(call MemoryService/ListMemories '{}' | json 'len(d.get("memories", []))')" 0 DeleteMemory

# FilesService: the import staging folder is always an approved root; the jail refuses escapes
# (PERMISSION_DENIED = 64 + 7) and reports each file of an import on its own.
expect "$(call FilesService/ListRoots '{}' | json '"staging" in [r["name"] for r in d["roots"]]')" True ListRoots
expect "$(call FilesService/ListDirectory '{"root":"staging"}' | json 'd["listing"]["root"]')" staging ListDirectory
expect_code 71 -d '{"root":"staging","path":"../"}' "$addr" aware.v1.FilesService/ListDirectory
expect_code 69 -d '{"root":"nowhere"}' "$addr" aware.v1.FilesService/ListDirectory
expect "$(call FilesService/ImportFiles '{"root":"staging","paths":["missing.csv","/etc/passwd"]}' | json '[f["error"]["code"] for f in d["report"]["files"]]')" "['ERROR_CODE_NOT_FOUND', 'ERROR_CODE_PATH_REFUSED']" ImportFiles

# The dataset is still there (denied, then cancelled), and goes with a plain delete.
call DatasetsService/DeleteDataset "{\"dataset_id\":\"$ds\"}" >/dev/null
expect_code 69 -d "{\"dataset_id\":\"$ds\"}" "$addr" aware.v1.DatasetsService/GetDataset

# AdminService (the local user is an admin): a user, a key shown once, listed by prefix, revoked;
# a deactivated user; an admin cannot demote themselves (PERMISSION_DENIED = 64 + 7).
usr=$(call AdminService/CreateUser '{"name":"recipe reader","role":"USER_ROLE_VIEWER"}' | json 'd["user"]["userId"]')
expect "$(call AdminService/ListUsers '{}' | json '"recipe reader" in [u["name"] for u in d["users"]]')" True ListUsers
made=$(call AdminService/CreateApiKey "{\"user_id\":\"$usr\"}")
key=$(echo "$made" | json 'd["key"]["keyId"]')
expect "$(echo "$made" | json 'd["token"].startswith(d["key"]["prefix"])')" True CreateApiKey
expect "$(call AdminService/ListApiKeys "{\"user_id\":\"$usr\"}" | json '[k["keyId"] for k in d["keys"]]')" "['$key']" ListApiKeys
expect "$(call AdminService/RevokeApiKey "{\"key_id\":\"$key\"}" | json '"revokedAt" in d["key"]')" True RevokeApiKey
expect "$(call AdminService/UpdateUser "{\"user_id\":\"$usr\",\"role\":\"USER_ROLE_ANALYST\",\"activation\":\"USER_ACTIVATION_DEACTIVATE\"}" | json '(d["user"]["role"], "deactivatedAt" in d["user"])')" "('USER_ROLE_ANALYST', True)" UpdateUser
expect_code 71 -d '{"user_id":"usr_local","role":"USER_ROLE_VIEWER"}' "$addr" aware.v1.AdminService/UpdateUser

# AuditService: that delete is the newest delete, from the API (grpcurl sends no source header);
# the assistant's approved-or-not calls are the assistant's; an unknown source is INVALID_ARGUMENT.
expect "$(call AuditService/ListAuditEntries '{"action":"dataset.delete","page_size":1}' | json '(d["entries"][0]["resourceId"], d["entries"][0]["source"])')" "('$ds', 'api')" ListAuditEntries
expect "$(call AuditService/ListAuditEntries '{"action":"user."}' | json '[e["action"] for e in d["entries"]]')" "['user.deactivate', 'user.role', 'user.create']" "ListAuditEntries of the admin changes"
expect "$(call AuditService/ListAuditEntries '{"action":"dataset.","source":"api"}' | json 'sorted({e["action"] for e in d["entries"]})')" "['dataset.delete', 'dataset.upload']" "ListAuditEntries filtered"
expect_code 67 -d '{"source":"browser"}' "$addr" aware.v1.AuditService/ListAuditEntries
# Curation: a verified query, a result saved as a dataset with its lineage, a rename (with a
# description) that the saved query follows.
expect "$(call DatasetsService/SaveQuery '{"name":"churn count","sql":"SELECT count(*) AS n FROM customer_churn"}' | json 'd["query"]["name"]')" "churn count" SaveQuery
expect "$(call DatasetsService/ListSavedQueries '{}' | json '[q["name"] for q in d["queries"]]')" "['churn count']" ListSavedQueries
mat=$(call DatasetsService/MaterializeQuery '{"table_name":"churn_total","sql":"SELECT count(*) AS n FROM customer_churn"}')
expect "$(echo "$mat" | json '(d["dataset"]["format"], d["dataset"]["rowCount"], d["dataset"]["lineage"]["sources"][0]["tableName"])')" "('DATASET_FORMAT_DERIVED', '1', 'customer_churn')" MaterializeQuery
churn=$(call DatasetsService/ListDatasets '{}' | json '[x["id"] for x in d["datasets"] if x["tableName"] == "customer_churn"][0]')
expect "$(call DatasetsService/UpdateDataset "{\"dataset_id\":\"$churn\",\"table_name\":\"churn_2026\",\"description\":\"Customers and whether they left\"}" | json '(d["dataset"]["tableName"], d["dataset"]["description"])')" "('churn_2026', 'Customers and whether they left')" UpdateDataset
expect "$(call DatasetsService/ListSavedQueries '{}' | json '"churn_2026" in d["queries"][0]["sql"]')" True "a saved query follows a rename"
expect "$(call DatasetsService/DeleteSavedQuery '{"query":"churn count"}' | json 'd["query"]["name"]')" "churn count" DeleteSavedQuery
expect_code 67 -d "{\"dataset_id\":\"$churn\",\"table_name\":\"Not A Name\"}" "$addr" aware.v1.DatasetsService/UpdateDataset
# RefreshDataset: an uploaded dataset has no file to read again (INVALID_ARGUMENT = 64 + 3); one
# imported from an approved folder is read again when its file changed, and only then.
expect_code 67 -d "{\"dataset_id\":\"$churn\"}" "$addr" aware.v1.DatasetsService/RefreshDataset
if [ -n "${AWARE_IMPORT_DIR:-}" ]; then
  printf 'city,visits\nBarcelona,3\n' > "$AWARE_IMPORT_DIR/recipe_visits.csv"
  visits=$(call FilesService/ImportFiles '{"root":"staging","paths":["recipe_visits.csv"]}' | json 'd["report"]["files"][0]["dataset"]["id"]')
  expect "$(call DatasetsService/RefreshDataset "{\"dataset_id\":\"$visits\"}" | json 'd.get("changed", False)')" False "RefreshDataset of an unchanged file"
  printf 'city,visits\nBarcelona,3\nGirona,5\n' > "$AWARE_IMPORT_DIR/recipe_visits.csv"
  expect "$(call DatasetsService/RefreshDataset "{\"dataset_id\":\"$visits\"}" | json '(d["changed"], d["previousRowCount"], d["dataset"]["rowCount"])')" "(True, '1', '2')" RefreshDataset
fi
echo "every RPC answered as expected" >&2
