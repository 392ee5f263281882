// The conversation on screen, as the assistant panel and the rest of the app see it: its turns
// (each a run's transcript), whether a run is going, the draft, and what one can do with it.
// `ConversationProvider` keeps it for the app's lifetime, so runs go on (and stay followed)
// while the phone drawer is closed or the window is resized across the breakpoint.
import { createContext, useContext } from "react";
import type { Feedback } from "@aware/client";
import type { Transcript } from "../lib/transcript";

export interface Turn extends Transcript {
  question: string;
  runId: string;
  feedback?: Feedback;
}

export interface Conversation {
  /** The thread on screen; "" for a new conversation (its thread opens with the first snapshot). */
  threadId: string;
  turns: Turn[];
  /** Its turns are being read (a reload, another conversation opened). */
  loading: boolean;
  /** The stream of a run is down and being reopened. */
  reconnecting: boolean;
  error: string;
  /** A run of this conversation is still going. */
  busy: boolean;
  draft: string;
  setDraft(text: string): void;
  send(text: string): void;
  /** Edit and resend: a copy of the conversation before `runId` gets the edited question. */
  resend(runId: string, text: string): void;
  /** Stops every run of this conversation still going. */
  stop(): void;
  /** Shows another conversation ("" starts a new one). */
  open(threadId: string): void;
  /** The conversations list is open (⌘K opens it from anywhere). */
  listOpen: boolean;
  setListOpen(open: boolean): void;
  /** The confirmations whose cards this conversation shows: the approvals list leaves them to it. */
  confirmationIds: ReadonlySet<string>;
}

export const ConversationContext = createContext<Conversation | null>(null);

export function useConversation(): Conversation {
  const c = useContext(ConversationContext);
  if (!c) throw new Error("useConversation outside ConversationProvider");
  return c;
}
