// Moments on the Admin page, as lists say them ("today, 14:05").
import { timestampDate, type User } from "@aware/client";
import { whenText } from "../../lib/format";

type Moment = User["createdAt"];
export const millis = (t: Moment) => (t ? timestampDate(t).getTime() : 0);
export const at = (t: Moment) => (t ? whenText(timestampDate(t)) : "");
