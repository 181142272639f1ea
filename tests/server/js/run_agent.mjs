// Runs the official @ag-ui/client HttpAgent against an AG-UI endpoint, turn after turn.
//
//   node run_agent.mjs SCRIPT.json      one script; exit 1 if a run failed
//   node run_agent.mjs --lines          a script path per stdin line, a JSON line per script
//                                       (with "exit"): one Node start for a whole test session
//
// SCRIPT: {"url", "threadId", "messages", "tools", "answers": {toolName: result}, "maxTurns"}.
// Each run goes through the client's own pipeline (enforceEvents, transformChunks,
// verifyEvents), so a stream the client does not accept fails the run. After a run, every
// call of a tool named in "answers" that has no result yet is answered with a tool message
// and the conversation runs again (a frontend tool round trip).
// Prints {"runs": [{"runId", "events", "error"}], "messages", "exit"} as JSON.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { HttpAgent } from "@ag-ui/client";

async function play(script) {
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
  return { runs, messages: agent.messages, exit: failed ? 1 : 0 };
}

const load = (path) => JSON.parse(readFileSync(path, "utf8"));

if (process.argv[2] === "--lines") {
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    let out;
    try {
      out = await play(load(line.trim()));
    } catch (e) {  // a script that fails outside a run: this line's answer, the next goes on
      out = { runs: [], messages: [], exit: 2, error: `${e?.name ?? "Error"}: ${e?.message ?? String(e)}` };
    }
    process.stdout.write(JSON.stringify(out) + "\n");
  }
} else {
  const out = await play(load(process.argv[2]));
  process.stdout.write(JSON.stringify(out));
  process.exit(out.exit);
}
