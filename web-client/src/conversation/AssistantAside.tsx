// The assistant beside the page, on wide screens: a complementary landmark named "Assistant".
import { AssistantPanel } from "./AssistantPanel";

export function AssistantAside() {
  return (
    <aside className="assistant" aria-labelledby="assistant-title">
      <AssistantPanel heading={<h2 id="assistant-title">Assistant</h2>} />
    </aside>
  );
}
