"""The 1,000,000-row trace of the simulate benchmarks (benches/plans.sh,
benches/trace_read.sh) and its scenarios, written under the folder given:
trace.csv (61 MB, four capabilities, sizes from a fixed LCG), plain.toml
(the research scenario without its what-ifs), context.toml (with
[context_management]) and all.toml (with every what-if section).

    python3 benches/gen_trace.py target/bench-plans [ROWS]

ROWS (default 1,000,000) makes a shorter trace (benches/live_page.sh: 100,000).
"""
import os
import sys
t = sys.argv[1]
os.makedirs(t, exist_ok=True)
rows = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
caps = ["reddit/search", "trustpilot/reviews", "youtube/search", "youtube/comments"]
x, m = 0x2545F4914F6CDD1D, 2**64
with open(f"{t}/trace.csv", "w") as w:
    w.write("call,capability,status,items,raw_bytes,trimmed_bytes,latency_ms,charged_usd,replayed\n")
    for i in range(1, rows + 1):
        x = (x * 6364136223846793005 + 1442695040888963407) % m
        raw = 500 + (x >> 33) % 100_000
        w.write(f"{i},{caps[i % 4]},200,{1 + (x >> 20) % 30},{raw},{raw // 5},{1000 + (x >> 40) % 15_000},0.000792,false\n")
root = os.path.abspath("scenarios")
full = open("scenarios/research.toml").read()
full = full.replace("traces/research-trace.csv", os.path.abspath(f"{t}/trace.csv"))
full = full.replace("prices/anthropic.toml", f"{root}/prices/anthropic.toml")
main = full.split("# ── What-if")[0]
# Every what-if section of the research run (retry, cache lifetime, effort,
# restart, context management) on the same trace.
open(f"{t}/all.toml", "w").write(full)
open(f"{t}/plain.toml", "w").write(main)
open(f"{t}/context.toml", "w").write(
    main + '\n[context_management]\nvariant = "raw, 5-min cache"\nsummary_tokens = 2000\n')
