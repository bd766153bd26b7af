"""Writes an OTLP/JSON span export (one export per line, as the collector's
file exporter writes them) of SIZE megabytes: sessions of chat spans with
GenAI usage and tool spans carrying `gen_ai.tool.call.result` text (the
opt-in attribute that makes such files large). Also writes the same
spans as one pretty-printed document, `export.json`, beside it.

    python3 benches/gen_otel.py DIR [SIZE_MB]
"""
import json
import os
import random
import sys

out = sys.argv[1]
size = int(sys.argv[2]) * 1_000_000 if len(sys.argv) > 2 else 350_000_000
os.makedirs(os.path.join(out, "lines"), exist_ok=True)
os.makedirs(os.path.join(out, "whole"), exist_ok=True)
rng = random.Random(7)
t0 = 1_772_539_200_000_000_000


def attr(k, v):
    if isinstance(v, int):
        return {"key": k, "value": {"intValue": str(v)}}
    return {"key": k, "value": {"stringValue": v}}


def export(session, n):
    spans, t = [], t0 + n * 60_000_000_000
    cached = 0
    for step in range(20):
        prompt = 3000 + step * 900
        spans.append({"traceId": f"t{session}", "spanId": f"c{step}", "startTimeUnixNano": str(t),
                      "endTimeUnixNano": str(t + 2_000_000_000), "attributes": [
                          attr("gen_ai.operation.name", "chat"),
                          attr("gen_ai.conversation.id", f"conv-{session}"),
                          attr("gen_ai.response.model", "gpt-5"),
                          attr("gen_ai.usage.input_tokens", prompt),
                          attr("gen_ai.usage.cache_read.input_tokens", cached),
                          attr("gen_ai.usage.output_tokens", 200)]})
        cached = prompt
        t += 2_500_000_000
        body = "x" * rng.randint(2_000, 40_000)
        spans.append({"traceId": f"t{session}", "spanId": f"r{step}", "startTimeUnixNano": str(t),
                      "endTimeUnixNano": str(t + 1_000_000_000), "attributes": [
                          attr("gen_ai.operation.name", "execute_tool"),
                          attr("gen_ai.conversation.id", f"conv-{session}"),
                          attr("gen_ai.tool.name", "read_file"),
                          attr("gen_ai.tool.call.result", body)]})
        t += 1_500_000_000
    return {"resourceSpans": [{"resource": {"attributes": [attr("service.name", "agent")]},
                               "scopeSpans": [{"scope": {"name": "genai"}, "spans": spans}]}]}


written, n, every = 0, 0, []
with open(os.path.join(out, "lines", "export.jsonl"), "w") as f:
    while written < size:
        line = json.dumps(export(n, n))
        f.write(line + "\n")
        written += len(line) + 1
        n += 1
with open(os.path.join(out, "lines", "export.jsonl")) as src, \
        open(os.path.join(out, "whole", "export.json"), "w") as dst:
    dst.write('{\n  "resourceSpans": [\n')
    for i, line in enumerate(src):
        rs = json.loads(line)["resourceSpans"][0]
        dst.write((",\n" if i else "") + json.dumps(rs, indent=2))
    dst.write("\n  ]\n}\n")
print(f"{n} sessions, {written / 1e6:.0f} MB")
