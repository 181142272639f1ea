// Runs the official @ag-ui/client HttpAgent against an AG-UI endpoint, turn after turn.
//
//   node run_agent.mjs SCRIPT.json
//
// SCRIPT: {"url", "threadId", "messages", "tools", "answers": {toolName: result}, "maxTurns"}.
// Each run goes through the client's own pipeline (enforceEvents, transformChunks,
// verifyEvents), so a stream the client does not accept fails the run. After a run, every
// call of a tool named in "answers" that has no result yet is answered with a tool message
// and the conversation runs again (a frontend tool round trip).
// Prints {"runs": [{"runId", "events", "error"}], "messages"} as JSON; exit 1 if a run failed.
import { readFileSync } from "node:fs";
import { HttpAgent } from "@ag-ui/client";

const script = JSON.parse(readFileSync(process.argv[2], "utf8"));
const agent = new HttpAgent({
  url: script.url,
  threadId: script.threadId,
  initialMessages: script.messages ?? [],
});
const answers = script.answers ?? {};
const runs = [];
let failed = false;

for (let turn = 0; turn < (script.maxTurns ?? 4); turn++) {
  const runId = `${script.threadId}-run-${turn + 1}`;
  const events = [];
  let error = null;
  try {
    await agent.runAgent(
      { runId, tools: script.tools ?? [] },
      { onEvent: ({ event }) => { events.push(event); } },
    );
  } catch (e) {
    error = `${e?.name ?? "Error"}: ${e?.message ?? String(e)}`;
    failed = true;
  }
  runs.push({ runId, events, error });
  if (error) break;
  const answered = new Set(agent.messages.filter((m) => m.role === "tool").map((m) => m.toolCallId));
  const open = agent.messages
    .filter((m) => m.role === "assistant")
    .flatMap((m) => m.toolCalls ?? [])
    .filter((c) => !answered.has(c.id) && c.function.name in answers);
  if (open.length === 0) break;
  for (const call of open) {
    agent.addMessage({
      id: `result-${call.id}`,
      role: "tool",
      toolCallId: call.id,
      content: answers[call.function.name],
    });
  }
}

process.stdout.write(JSON.stringify({ runs, messages: agent.messages }));
process.exit(failed ? 1 : 0);
