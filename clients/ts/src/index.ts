// @aware/client — the TypeScript client for aware over grpc-web (browsers and Node 20).
//
// The generated code (src/gen, from proto/ by `npm run generate`) gives typed messages and service
// descriptors; this layer adds what every app needs on top: a client bound to a server and a token,
// `runStream`, which follows a run to its end across disconnects — it resumes from the last
// sequence number it delivered, drops duplicates, watches heartbeats, and says when it is
// reconnecting — thin helpers for approvals (for a while, with edits), clarifications, feedback and
// re-running a run's queries, `auditEntries`, which reads the audit log across its pages, and
// knowledge documents: `uploadDocument`, and an answer's cited passages (`citationsOf`,
// `sourcesOf`, `citationIds`), and `errorInfo`, aware's error code and its facts on a failed call.

import { Code, ConnectError, createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { AdminService } from "./gen/aware/v1/admin_pb.js";
import { AuditService, type AuditEntry, type ListAuditEntriesRequestSchema } from "./gen/aware/v1/audit_pb.js";
import { ChatService, ConfirmationScope, OnBusy, type StateSnapshot, type SubmitClarificationResponse } from "./gen/aware/v1/chat_pb.js";
import { DatasetsService, type Dataset, type KnowledgeChunk } from "./gen/aware/v1/datasets_pb.js";
import { FilesService } from "./gen/aware/v1/files_pb.js";
import { MemoryService } from "./gen/aware/v1/memory_pb.js";
import { QueryService } from "./gen/aware/v1/query_pb.js";
import { CitationStatus, FeedbackRating, type CitationCheck, type Feedback, type Run } from "./gen/aware/v1/run_pb.js";
import { RunsService, type RerunQueryResponse } from "./gen/aware/v1/runs_pb.js";
import { ThreadsService } from "./gen/aware/v1/threads_pb.js";
import type { ServerEvent } from "./gen/aware/v1/events_pb.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { BinaryReader } from "@bufbuild/protobuf/wire";
import type { StateSnapshotSchema } from "./gen/aware/v1/chat_pb.js";

export * from "./gen/aware/v1/admin_pb.js";
export * from "./gen/aware/v1/audit_pb.js";
export * from "./gen/aware/v1/chat_pb.js";
export * from "./gen/aware/v1/common_pb.js";
export * from "./gen/aware/v1/datasets_pb.js";
export * from "./gen/aware/v1/events_pb.js";
export * from "./gen/aware/v1/files_pb.js";
export * from "./gen/aware/v1/memory_pb.js";
export * from "./gen/aware/v1/query_pb.js";
export * from "./gen/aware/v1/run_pb.js";
export * from "./gen/aware/v1/runs_pb.js";
export * from "./gen/aware/v1/threads_pb.js";
export { Code, ConnectError };
export { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";

export interface AwareClientOptions {
  /** e.g. "http://127.0.0.1:50051" — the server's one port serves grpc-web too. */
  baseUrl: string;
  /** An API key (`aware-server users add`); not needed in local auth mode. */
  token?: string;
  /** Recorded in the audit log as who acted: "web", "cli" or "api" (the server's default). */
  source?: "web" | "cli" | "api";
  /** A fetch to use instead of the global one (tests, proxies). */
  fetch?: typeof globalThis.fetch;
}

/** Which audit entries to read: ListAuditEntries' filters and page size (pages are followed for you). */
export type AuditFilter = Omit<MessageInitShape<typeof ListAuditEntriesRequestSchema>, "pageToken" | "$typeName">;

/** What `runStream` yields: every sequenced event once, in order, plus connection news. */
export type StreamItem =
  | { kind: "event"; event: ServerEvent }
  | { kind: "heartbeat"; event: ServerEvent }
  | { kind: "reconnecting"; attempt: number; afterSeq: bigint; error: string }
  | { kind: "connected"; afterSeq: bigint };

export interface RunStreamOptions {
  /** Deliver events with seq greater than this (0: from the start). */
  afterSeq?: bigint;
  /** Silence (no event, no heartbeat) after which the connection is presumed dead. */
  heartbeatTimeoutMs?: number;
  /** Reconnect attempts in a row before giving up (each doubles the wait, up to maxBackoffMs). */
  maxAttempts?: number;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Stops following the run. */
  signal?: AbortSignal;
}

/** Codes that no retry can fix: the run is not there, or not ours, or the request is wrong. */
const FINAL_CODES = new Set([
  Code.NotFound,
  Code.PermissionDenied,
  Code.Unauthenticated,
  Code.InvalidArgument,
  Code.FailedPrecondition,
]);

export class AwareClient {
  readonly chat: Client<typeof ChatService>;
  readonly datasets: Client<typeof DatasetsService>;
  readonly query: Client<typeof QueryService>;
  readonly runs: Client<typeof RunsService>;
  readonly files: Client<typeof FilesService>;
  readonly threads: Client<typeof ThreadsService>;
  readonly memory: Client<typeof MemoryService>;
  /** The audit log (an admin's: everyone's; anyone else's: their own). */
  readonly audit: Client<typeof AuditService>;
  /** Users and API keys (admins only). */
  readonly admin: Client<typeof AdminService>;

  constructor(options: AwareClientOptions) {
    const headers: Interceptor = (next) => async (req) => {
      if (options.token) req.header.set("authorization", `Bearer ${options.token}`);
      if (options.source) req.header.set("x-aware-source", options.source);
      return next(req);
    };
    const transport = createGrpcWebTransport({
      baseUrl: options.baseUrl,
      interceptors: [headers],
      fetch: options.fetch,
    });
    this.chat = createClient(ChatService, transport);
    this.datasets = createClient(DatasetsService, transport);
    this.query = createClient(QueryService, transport);
    this.runs = createClient(RunsService, transport);
    this.files = createClient(FilesService, transport);
    this.threads = createClient(ThreadsService, transport);
    this.memory = createClient(MemoryService, transport);
    this.audit = createClient(AuditService, transport);
    this.admin = createClient(AdminService, transport);
  }

  /** Starts a run. `clientMsgId` makes a retried send idempotent (the same run comes back). */
  async sendMessage(
    text: string,
    opts: { threadId?: string; clientMsgId?: string; onBusy?: OnBusy } = {},
  ): Promise<{ runId: string; threadId: string; queued: boolean }> {
    const r = await this.chat.sendMessage({
      clientMsgId: opts.clientMsgId ?? "",
      message: { threadId: opts.threadId ?? "", text, onBusy: opts.onBusy ?? OnBusy.UNSPECIFIED },
    });
    return { runId: r.runId, threadId: r.threadId, queued: r.queued };
  }

  /** Tells aware where the user is (route, active dataset): send it on every route change. */
  async updateState(snapshot: MessageInitShape<typeof StateSnapshotSchema>): Promise<{ threadId: string; uiStateVersion: bigint }> {
    const r = await this.chat.updateState({ snapshot });
    return { threadId: r.threadId, uiStateVersion: r.uiStateVersion };
  }

  /** Approves or denies a confirmation; the answer says how it was resolved (first decision wins). */
  async confirm(confirmationId: string, approved: boolean) {
    return this.chat.submitConfirmation({ confirmationId, approved });
  }

  /**
   * Approves a call with narrower arguments than it asked for (the arguments object as the tool
   * takes it, e.g. an import's `{root, paths}` with fewer `paths`). What would widen the call is
   * refused (`BAD_REQUEST`) and the confirmation stays pending.
   */
  async approveWithEdits(confirmationId: string, editedArguments: object) {
    return this.chat.submitConfirmation({ confirmationId, approved: true, editedArgumentsJson: JSON.stringify(editedArguments) });
  }

  /**
   * Approves a call and, for `seconds` (at most 3,600), later calls of the same tool on the same
   * resource class without asking: a session grant, whose id the answer carries (`grantId`; see
   * `chat.listGrants` and `chat.revokeGrant`). STANDARD confirmations only: the server refuses an
   * ELEVATED one (`PERMISSION_DENIED`) and it stays pending. `editedArguments` narrows this call as
   * in `approveWithEdits`.
   */
  async allowFor(confirmationId: string, seconds = 300, editedArguments?: object) {
    return this.chat.submitConfirmation({
      confirmationId,
      approved: true,
      scope: ConfirmationScope.SESSION,
      durationSeconds: seconds,
      editedArgumentsJson: editedArguments ? JSON.stringify(editedArguments) : "",
    });
  }

  /**
   * Answers a clarification (`ClarificationRequired`) with one of its options' `value`; the paused
   * run goes on with it. `remember` keeps the answer as a rule in the dataset's description, so
   * the same words are not asked about again (it needs write access to the dataset). A choice that
   * is not among the options is refused (`INVALID_ARGUMENT`) and the question stays open.
   */
  async clarify(clarificationId: string, choice: string, remember = false): Promise<SubmitClarificationResponse> {
    return this.chat.submitClarification({ clarificationId, choice, remember });
  }

  /** Dismisses a clarification (none of the options): the run goes on without computing an answer. */
  async dismissClarification(clarificationId: string): Promise<SubmitClarificationResponse> {
    return this.chat.submitClarification({ clarificationId, choice: "", remember: false });
  }

  /**
   * Computes a finished run's queries again over the data as it is now, without a model, and
   * compares each result with the one recorded (hashes, rows added and removed). Nothing is
   * recorded; a run that ran no query is `INVALID_ARGUMENT`.
   */
  async rerunQuery(runId: string): Promise<RerunQueryResponse> {
    return this.runs.rerunQuery({ runId });
  }

  /** Rates a run's answer, with an optional reason; a second rating of the run replaces the first. */
  async sendFeedback(runId: string, rating: "up" | "down", reason = ""): Promise<Feedback> {
    const r = await this.runs.submitFeedback({ runId, rating: rating === "up" ? FeedbackRating.UP : FeedbackRating.DOWN, reason });
    if (!r.feedback) throw new Error("the server kept the feedback but returned none");
    return r.feedback;
  }

  async cancel(runId: string) {
    return this.chat.cancelRun({ runId });
  }

  /** Uploads a file in chunks (the browser path: unary calls only), reporting progress. */
  async uploadFile(
    filename: string,
    bytes: Uint8Array,
    opts: { format?: string; onProgress?: (sent: number, total: number) => void } = {},
  ): Promise<Dataset> {
    const created = await this.datasets.createUpload({
      filename,
      format: opts.format ?? "",
      sizeBytes: BigInt(bytes.length),
    });
    const step = Math.max(1, created.maxChunkBytes);
    for (let offset = 0; offset < bytes.length; offset += step) {
      const chunk = bytes.subarray(offset, Math.min(bytes.length, offset + step));
      await this.datasets.appendUpload({ uploadId: created.uploadId, offset: BigInt(offset), chunk });
      opts.onProgress?.(offset + chunk.length, bytes.length);
    }
    const committed = await this.datasets.commitUpload({ uploadId: created.uploadId });
    if (!committed.dataset) throw new Error("the server committed the upload but returned no dataset");
    return committed.dataset;
  }

  /**
   * Uploads a knowledge document — Markdown (`.md`, `.markdown`) or plain text (`.txt`) — which the
   * server stores as its passages for `search_knowledge`. Its format comes from the file name
   * unless `opts.format` says it; any other name is refused before anything is sent.
   */
  async uploadDocument(
    filename: string,
    content: string | Uint8Array,
    opts: { format?: "markdown" | "text"; onProgress?: (sent: number, total: number) => void } = {},
  ): Promise<Dataset> {
    const format = opts.format ?? documentFormat(filename);
    if (!format) throw new Error(`${filename} is not a document: name it .md, .markdown or .txt, or say its format`);
    const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
    return this.uploadFile(filename, bytes, { format, onProgress: opts.onProgress });
  }

  /**
   * A finished run's cited passages with their text: its citation check (GetRun) joined with the
   * passages its `search_knowledge` calls returned (its event log). See `sourcesOf`.
   */
  async citationsOf(run: Run | string): Promise<RunSources> {
    const got = typeof run === "string" ? (await this.runs.getRun({ runId: run })).run : run;
    if (!got) throw new Error("the server found the run but returned none");
    const events: ServerEvent[] = [];
    let afterSeq = 0n;
    for (;;) {
      const page = await this.runs.listRunEvents({ runId: got.runId, afterSeq, limit: 1000 });
      events.push(...page.events);
      if (page.events.length === 0) break;
      afterSeq = page.events[page.events.length - 1].seq;
      if (afterSeq >= page.lastSeq) break;
    }
    return sourcesOf(events, got.citations);
  }

  /**
   * The audit entries that match `filter`, newest first, page after page: the next page is read
   * only when the caller iterates past the last one (stop early with `break`).
   */
  async *auditEntries(filter: AuditFilter = {}): AsyncGenerator<AuditEntry, void, undefined> {
    let pageToken = "";
    do {
      const page = await this.audit.listAuditEntries({ ...filter, pageToken });
      yield* page.entries;
      pageToken = page.nextPageToken;
    } while (pageToken);
  }

  /**
   * Follows a run until `RunCompleted`, across disconnects: each sequenced event is yielded exactly
   * once and in order; a broken or silent connection is reopened from the last delivered seq
   * (with backoff), announced by a `reconnecting` item.
   */
  async *runStream(runId: string, opts: RunStreamOptions = {}): AsyncGenerator<StreamItem, void, undefined> {
    let lastSeq = opts.afterSeq ?? 0n;
    const heartbeatTimeout = opts.heartbeatTimeoutMs ?? 15_000;
    const maxAttempts = opts.maxAttempts ?? 8;
    const initial = opts.initialBackoffMs ?? 100;
    const maxBackoff = opts.maxBackoffMs ?? 5_000;
    let failures = 0;
    for (;;) {
      const attempt = new AbortController();
      const stopFromCaller = () => attempt.abort(opts.signal?.reason);
      opts.signal?.addEventListener("abort", stopFromCaller, { once: true });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => attempt.abort(new Error(`no event or heartbeat for ${heartbeatTimeout} ms`)), heartbeatTimeout);
      };
      let error = "the stream ended before the run did";
      try {
        arm();
        const stream = this.chat.streamRun({ runId, afterSeq: lastSeq }, { signal: attempt.signal });
        yield { kind: "connected", afterSeq: lastSeq };
        for await (const response of stream) {
          arm();
          const event = response.event;
          if (!event) continue;
          if (event.seq === 0n) {
            if (event.payload.case === "heartbeat") yield { kind: "heartbeat", event };
            continue; // replay markers and other unsequenced news
          }
          if (event.seq <= lastSeq) continue; // already delivered before a reconnect
          lastSeq = event.seq;
          failures = 0;
          yield { kind: "event", event };
          if (event.payload.case === "runCompleted") return;
        }
      } catch (e) {
        if (opts.signal?.aborted) return;
        const err = ConnectError.from(e);
        if (FINAL_CODES.has(err.code)) throw err;
        error = err.message;
      } finally {
        clearTimeout(timer);
        opts.signal?.removeEventListener("abort", stopFromCaller);
        attempt.abort();
      }
      if (opts.signal?.aborted) return;
      failures += 1;
      if (failures > maxAttempts) {
        throw new ConnectError(`gave up following run ${runId} after ${maxAttempts} reconnects: ${error}`, Code.Unavailable);
      }
      yield { kind: "reconnecting", attempt: failures, afterSeq: lastSeq, error };
      const wait = Math.min(maxBackoff, initial * 2 ** (failures - 1));
      await sleep(wait * (0.5 + Math.random() / 2), opts.signal);
    }
  }
}

export function createAwareClient(options: AwareClientOptions): AwareClient {
  return new AwareClient(options);
}

/** What aware says about a failed call beyond its message: its error code (`reason`, e.g.
 *  "COST_CONFIRMATION_REQUIRED", as in `ErrorCode` without its prefix) and facts for programs
 *  (`metadata`, e.g. a query's `estimated_rows` and `estimated_bytes`). */
export interface ErrorInfo {
  reason: string;
  metadata: Record<string, string>;
}

/** The `google.rpc.ErrorInfo` aware attached to a failed call; undefined for a failure that did
 *  not come from aware (the connection, a deadline the caller set). */
export function errorInfo(e: unknown): ErrorInfo | undefined {
  for (const detail of ConnectError.from(e).details) {
    if (!("type" in detail) || detail.type !== "google.rpc.ErrorInfo") continue;
    const info = decodeErrorInfo(detail.value);
    if (info.domain === "aware.v1") return { reason: info.reason, metadata: info.metadata };
  }
  return undefined;
}

/** ErrorInfo's wire form: reason (1), domain (2), metadata (3, a map of string to string). */
function decodeErrorInfo(bytes: Uint8Array): ErrorInfo & { domain: string } {
  const out = { reason: "", domain: "", metadata: {} as Record<string, string> };
  const reader = new BinaryReader(bytes);
  while (reader.pos < reader.len) {
    const [field, wire] = reader.tag();
    if (field === 1) out.reason = reader.string();
    else if (field === 2) out.domain = reader.string();
    else if (field === 3) {
      const entry = new BinaryReader(reader.bytes());
      let key = "";
      let value = "";
      while (entry.pos < entry.len) {
        const [f, w] = entry.tag();
        if (f === 1) key = entry.string();
        else if (f === 2) value = entry.string();
        else entry.skip(w);
      }
      out.metadata[key] = value;
    } else reader.skip(wire);
  }
  return out;
}

/** The text of a run: the concatenated `TextDelta`s of the events given. */
export function textOf(events: Iterable<ServerEvent>): string {
  let text = "";
  for (const e of events) if (e.payload.case === "textDelta") text += e.payload.value.delta;
  return text;
}

/** A document's upload format by its file name: "markdown" (`.md`, `.markdown`), "text" (`.txt`), or
 *  undefined for anything else. */
export function documentFormat(filename: string): "markdown" | "text" | undefined {
  const ext = /\.([^./\\]+)$/.exec(filename)?.[1]?.toLowerCase();
  if (ext === "md" || ext === "markdown") return "markdown";
  if (ext === "txt") return "text";
  return undefined;
}

/** One bracketed citation in an answer: where it is (UTF-16 offsets, end exclusive) and its ids. */
export interface CitationMention {
  start: number;
  end: number;
  ids: string[];
}

const CHUNK_ID = "[a-z0-9_]+::\\d{3,}";
/** `[handbook::003]`, `[handbook::003, faq::012]`, `[a::001; b::002]`: a bracket of chunk ids only. */
const CITATION = new RegExp(`\\[\\s*(${CHUNK_ID}(?:\\s*[,;]\\s*${CHUNK_ID})*)\\s*\\]`, "g");

/** Every bracketed citation of chunk ids in `text`, in order. A bracket holding anything else
 *  (words, a Markdown link's text) is not a citation. */
export function citationMentions(text: string): CitationMention[] {
  return Array.from(text.matchAll(CITATION), (m) => ({
    start: m.index,
    end: m.index + m[0].length,
    ids: m[1].split(/[,;]/).map((id) => id.trim()),
  }));
}

/** The chunk ids an answer cites (`[handbook::003]`), each once, in order of first mention. */
export function citationIds(text: string): string[] {
  return [...new Set(citationMentions(text).flatMap((m) => m.ids))];
}

/** An answer's sources: what it cites, checked against what its run retrieved. */
export interface RunSources {
  /** The server's verdict; UNSPECIFIED when there is none: the run searched no documents, or has
   *  not answered yet (then `cited` is read from its text). */
  status: CitationStatus;
  /** The cited passages the run retrieved, in order of first mention, with their text. */
  cited: KnowledgeChunk[];
  /** Cited chunk ids the run never retrieved. */
  invalid: string[];
  /** Every chunk id the run retrieved. */
  retrieved: string[];
  /** Every passage the run's searches returned, by chunk id. */
  passages: Map<string, KnowledgeChunk>;
  /** Whether the run called `search_knowledge` at all. */
  searched: boolean;
}

/**
 * An answer's sources from its run's events: the citation check (`check`, else the run's
 * Grounding event's) joined with the passages its `search_knowledge` results hold. Without a
 * check (a run still going), the ids are read from the run's text and checked against its
 * RetrievalCompleted events.
 */
export function sourcesOf(events: Iterable<ServerEvent>, check?: CitationCheck): RunSources {
  const passages = new Map<string, KnowledgeChunk>();
  const retrieved: string[] = [];
  let searched = false;
  let text = "";
  for (const e of events) {
    const p = e.payload;
    if (p.case === "toolResult" && p.value.rich.case === "knowledge") {
      searched = true;
      for (const c of p.value.rich.value.chunks) if (!passages.has(c.chunkId)) passages.set(c.chunkId, c);
    } else if (p.case === "retrievalCompleted") {
      searched = true;
      for (const id of p.value.chunkIds) if (!retrieved.includes(id)) retrieved.push(id);
    } else if (p.case === "grounding" && p.value.citations) {
      check ??= p.value.citations;
    } else if (p.case === "textDelta") {
      text += p.value.delta;
    }
  }
  if (check) {
    const invalid = new Set(check.invalid);
    const cited = check.cited.flatMap((id) => (invalid.has(id) ? [] : passages.get(id) ?? []));
    return { status: check.status, cited, invalid: [...check.invalid], retrieved: [...check.retrieved], passages, searched: true };
  }
  const ids = citationIds(text);
  const known = new Set(retrieved);
  return {
    status: CitationStatus.UNSPECIFIED,
    cited: ids.flatMap((id) => (known.has(id) ? passages.get(id) ?? [] : [])),
    invalid: ids.filter((id) => !known.has(id)),
    retrieved,
    passages,
    searched,
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    }, { once: true });
  });
}

export type { ServerEvent, StateSnapshot };
