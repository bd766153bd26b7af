//! Writes a synthetic Claude Code log corpus for the import benchmark, in the
//! shape Claude Code 2.1.x writes (see `src/import/claude_code.rs`): per
//! project, session files of user and assistant lines with one line per
//! content block (several lines per `message.id`, output growing to its
//! final value), usage with 5-minute or 1-hour cache writes per session,
//! tool results with text content and the `toolUseResult` copy real logs
//! carry, progress lines, subagent files under `<session>/subagents/`, and
//! resumed sessions that log earlier messages again without a `requestId`
//! (which ccusage counts twice).
//!
//! ```sh
//! cargo run --release --example gen_claude_corpus -- OUT_DIR BYTES [SEED]
//! ```
//!
//! The same arguments give the same bytes.

use rand::{RngExt, SeedableRng};
use rand_pcg::Pcg64;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::Path;

const MODELS: [&str; 3] = ["claude-opus-4-6", "claude-sonnet-4-5", "claude-haiku-4-5"];
const TOOLS: [&str; 6] = ["Read", "Bash", "Grep", "Edit", "Glob", "WebFetch"];

struct Gen {
    max_requests: u64,
    rng: Pcg64,
    written: u64,
    msg: u64,
    tool: u64,
}

impl Gen {
    fn filler(&mut self, n: usize) -> String {
        // Text with the escapes JSON strings of real tool output carry.
        // About one backslash in 25 bytes, as in the tool results of the
        // real transcripts in the development corpus (4 %).
        const WORDS: [&str; 9] = [
            "fn parse(input: &str) ",
            "let total = 0; ",
            "\\n",
            "src/import/lines.rs:42 ",
            "0123456789 ",
            "// a comment about it ",
            "match x { Some(v) => v, None => 0 } ",
            "\\\"quoted\\\" ",
            "\\n    ",
        ];
        let mut s = String::with_capacity(n + 16);
        while s.len() < n {
            s.push_str(WORDS[self.rng.random_range(0..WORDS.len())]);
        }
        s
    }

    fn result_size(&mut self) -> usize {
        // Log-uniform from 50 B to 40 kB.
        let e: f64 = self.rng.random_range(0.0..1.0);
        (50.0 * (800f64).powf(e)) as usize
    }

    fn session(
        &mut self,
        dir: &Path,
        project: &str,
        index: u64,
        lines: &mut Vec<String>,
    ) -> std::io::Result<()> {
        let id = format!("{:08x}-0000-4000-8000-{:012x}", index, index * 7919);
        let ttl_1h = self.rng.random_bool(0.5);
        let model = MODELS[self.rng.random_range(0..MODELS.len())];
        let requests = self.rng.random_range(20..self.max_requests.max(21));
        let mut prompt: u64 = self.rng.random_range(15_000..30_000);
        let day = 1 + index % 28;
        let mut t: u64 = self.rng.random_range(0..36_000);
        let ts = |t: u64| {
            format!(
                "2026-10-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
                (t / 3600) % 24,
                (t / 60) % 60,
                t % 60,
                t % 1000
            )
        };
        let head = |side: bool| {
            format!(
            "\"parentUuid\":null,\"isSidechain\":{side},\"userType\":\"external\",\"cwd\":\"/home/user/{project}\",\"sessionId\":\"{id}\",\"version\":\"2.1.39\",\"gitBranch\":\"main\""
        )
        };
        lines.clear();
        lines.push(format!(
            "{{{},\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"{}\"}},\"uuid\":\"u0\",\"timestamp\":\"{}\"}}",
            head(false), self.filler(300), ts(t)
        ));
        let mut pending: Option<(String, usize)> = None;
        let mut relog: Vec<String> = Vec::new();
        for k in 0..requests {
            self.msg += 1;
            let mid = format!("msg_{:016x}", self.msg);
            let grow: u64 = pending.as_ref().map_or(0, |(_, n)| (*n as u64) / 4)
                + self.rng.random_range(50..400);
            let (read, write) = if k == 0 { (0, prompt) } else { (prompt, grow) };
            prompt += grow;
            let out_final: u64 = self.rng.random_range(20..1500);
            let (w5, w1) = if ttl_1h { (0, write) } else { (write, 0) };
            let blocks = self.rng.random_range(1..4);
            t += self.rng.random_range(2..20);
            let tool = if k + 1 < requests {
                Some(TOOLS[self.rng.random_range(0..TOOLS.len())])
            } else {
                None
            };
            self.tool += 1;
            let tid = format!("toolu_{:016x}", self.tool);
            for b in 0..blocks {
                let last = b + 1 == blocks;
                let out = if last {
                    out_final
                } else {
                    out_final * (b + 1) / (blocks + 1)
                };
                let content = match (last, tool) {
                    (true, Some(name)) => format!("{{\"type\":\"tool_use\",\"id\":\"{tid}\",\"name\":\"{name}\",\"input\":{{\"path\":\"{}\"}}}}", self.filler(40)),
                    _ => format!("{{\"type\":\"text\",\"text\":\"{}\"}}", self.filler(120)),
                };
                let line = format!(
                    "{{{},\"message\":{{\"model\":\"{model}\",\"id\":\"{mid}\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{content}],\"stop_reason\":null,\"usage\":{{\"input_tokens\":{},\"cache_creation_input_tokens\":{write},\"cache_read_input_tokens\":{read},\"cache_creation\":{{\"ephemeral_5m_input_tokens\":{w5},\"ephemeral_1h_input_tokens\":{w1}}},\"output_tokens\":{out},\"service_tier\":\"standard\"}}}},\"requestId\":\"req_{mid}\",\"type\":\"assistant\",\"uuid\":\"a{k}-{b}\",\"timestamp\":\"{}\"}}",
                    head(false), 1 + k % 5, ts(t)
                );
                if k < 3 && last {
                    relog.push(line.replace(&format!(",\"requestId\":\"req_{mid}\""), ""));
                }
                lines.push(line);
            }
            if self.rng.random_bool(0.3) {
                lines.push(format!("{{{},\"type\":\"progress\",\"data\":{{\"message\":\"{}\"}},\"timestamp\":\"{}\"}}", head(false), self.filler(200), ts(t)));
            }
            if tool.is_some() {
                let n = self.result_size();
                let text = self.filler(n);
                t += self.rng.random_range(1..30);
                lines.push(format!(
                    "{{{},\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"tool_use_id\":\"{tid}\",\"type\":\"tool_result\",\"content\":\"{text}\",\"is_error\":false}}]}},\"uuid\":\"r{k}\",\"timestamp\":\"{}\",\"toolUseResult\":{{\"stdout\":\"{text}\",\"stderr\":\"\",\"interrupted\":false}}}}",
                    head(false), ts(t)
                ));
                pending = Some((tid.clone(), n));
            }
        }
        let path = dir.join(project).join(format!("{id}.jsonl"));
        self.write(&path, lines)?;
        // A subagent for one session in four.
        if self.rng.random_bool(0.25) {
            let mut sub = Vec::new();
            for k in 0..self.rng.random_range(3..20) {
                self.msg += 1;
                let (m, text) = (self.msg, self.filler(100));
                sub.push(format!(
                    "{{{},\"agentId\":\"a{k}\",\"message\":{{\"model\":\"claude-haiku-4-5\",\"id\":\"msg_{:016x}\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[{{\"type\":\"text\",\"text\":\"{}\"}}],\"usage\":{{\"input_tokens\":3,\"cache_creation_input_tokens\":500,\"cache_read_input_tokens\":{},\"cache_creation\":{{\"ephemeral_5m_input_tokens\":500,\"ephemeral_1h_input_tokens\":0}},\"output_tokens\":40}}}},\"requestId\":\"req_s{k}\",\"type\":\"assistant\",\"uuid\":\"s{k}\",\"timestamp\":\"{}\"}}",
                    head(true), m, text, 1000 * k, ts(t)
                ));
            }
            let p = dir
                .join(project)
                .join(&id)
                .join("subagents")
                .join(format!("agent-{:07x}.jsonl", index));
            self.write(&p, &sub)?;
        }
        // A resumed session in ten logs its first messages again, without requestId.
        if self.rng.random_bool(0.1) {
            let p = dir.join(project).join(format!("{id}-resumed.jsonl"));
            self.write(&p, &relog)?;
        }
        Ok(())
    }

    fn write(&mut self, path: &Path, lines: &[String]) -> std::io::Result<()> {
        fs::create_dir_all(path.parent().expect("a parent"))?;
        let mut w = BufWriter::new(File::create(path)?);
        for l in lines {
            w.write_all(l.as_bytes())?;
            w.write_all(b"\n")?;
            self.written += l.len() as u64 + 1;
        }
        w.flush()
    }
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: gen_claude_corpus OUT_DIR BYTES [SEED [MAX_REQUESTS]]");
        std::process::exit(2);
    }
    let out = Path::new(&args[1]);
    let target: u64 = args[2].parse().expect("BYTES is a number");
    let seed: u64 = args
        .get(3)
        .map_or(1, |s| s.parse().expect("SEED is a number"));
    // Requests per session are drawn from 20..MAX_REQUESTS (300: sessions of
    // about 2 MB; 40 gives many small ones).
    let max_requests: u64 = args
        .get(4)
        .map_or(300, |s| s.parse().expect("MAX_REQUESTS is a number"));
    let mut g = Gen {
        max_requests,
        rng: Pcg64::seed_from_u64(seed),
        written: 0,
        msg: 0,
        tool: 0,
    };
    let mut lines = Vec::new();
    let mut index = 0u64;
    while g.written < target {
        let project = format!("-home-user-project-{}", index % 12);
        g.session(out, &project, index, &mut lines)?;
        index += 1;
    }
    eprintln!(
        "wrote {} bytes in {index} sessions under {}",
        g.written,
        out.display()
    );
    Ok(())
}
