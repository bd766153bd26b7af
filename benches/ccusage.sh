# Sourced by the import benchmarks (import_vs_ccusage.sh, import_side_by_side.sh,
# targets.sh) from the repository's root: builds tokencast and the corpus
# generator, installs ccusage 20.0.24 (its native binary) under
# target/bench-import/ once with npm, never committed, and sets:
#
#   CCUSAGE    the ccusage binary
#   TOKENCAST  this tree's release build
CCUSAGE_DIR=target/bench-import/ccusage
mkdir -p target/bench-import
cargo build --release --locked --quiet
cargo build --release --locked --quiet --example gen_claude_corpus
if [ ! -x "$CCUSAGE_DIR/node_modules/.bin/ccusage" ]; then
    npm install --silent --prefix "$CCUSAGE_DIR" ccusage@20.0.24 >/dev/null
fi
CCUSAGE="$CCUSAGE_DIR/node_modules/.bin/ccusage"
TOKENCAST=target/release/tokencast
