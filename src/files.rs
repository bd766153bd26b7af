//! The files on disk a command reads: a scenario and the price book and
//! trace it names, a result document, a calibration.
//!
//! This is the CLI's side of [`tokencast_core::scenario::Files`]: the engine
//! is given text, and this module is where that text comes from a folder.

use crate::error::InputError;
use crate::input::{SourceText, MAX_INPUT_BYTES};
use crate::scenario::{Blocks, Files, Given, InputFile, Scenario};
use std::path::{Path, PathBuf};

/// Reads `path`, saying which file and why when it cannot. Only regular
/// files of at most [`MAX_INPUT_BYTES`] are read (a FIFO or a device
/// could block or never end); the text must be UTF-8, and a byte that is
/// not is reported with its line and column.
pub fn read(path: &Path, what: &str) -> Result<SourceText, InputError> {
    let cannot = |e: std::io::Error| {
        let help = match e.kind() {
            std::io::ErrorKind::NotFound => "check the path; paths inside a scenario are resolved from the scenario file's folder".to_string(),
            _ => format!("make sure the {what} is readable"),
        };
        InputError::new(format!("cannot read the {what} `{}`: {e}", path.display())).with_help(help)
    };
    let meta = std::fs::metadata(path).map_err(cannot)?;
    if meta.is_dir() {
        return Err(InputError::new(format!(
            "the {what} `{}` is a directory, not a file",
            path.display()
        ))
        .with_help(format!("give the path of the {what} file itself")));
    }
    if !meta.is_file() {
        return Err(InputError::new(format!(
            "the {what} `{}` is not a regular file (a pipe, socket or device)",
            path.display()
        ))
        .with_help(format!("save the {what} to a file and give its path")));
    }
    if meta.len() > MAX_INPUT_BYTES {
        return Err(InputError::new(format!(
            "the {what} `{}` has {} bytes, more than the {MAX_INPUT_BYTES} tokencast reads",
            path.display(),
            meta.len()
        ))
        .with_help("split it into smaller files"));
    }
    let bytes = read_bytes(path, meta.len()).map_err(cannot)?;
    let name = path.display().to_string();
    match String::from_utf8(bytes) {
        Ok(text) => Ok(SourceText { name, text }),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let bad = e.as_bytes()[at];
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            // The lossy text has the same prefix up to `at`.
            let line = text.as_bytes()[..at]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1;
            let column = text[..at].rfind('\n').map_or(at, |i| at - i - 1) + 1;
            let lossy = SourceText { name, text };
            Err(lossy
                .error_at(
                    format!(
                        "{}: line {line}, column {column}: byte 0x{bad:02x} is not UTF-8 text",
                        lossy.name
                    ),
                    at..at + '\u{fffd}'.len_utf8(),
                    "not UTF-8",
                )
                .with_help(format!("save the {what} as UTF-8")))
        }
    }
}

/// Files from this many bytes up are read in stretches side by side.
const SIDE_BY_SIDE_FROM: u64 = 8 << 20;

/// The bytes of one stretch read side by side.
const STRETCH: usize = 4 << 20;

/// The bytes of the file at `path`, whose size was `len` when asked. A
/// large file is read in stretches on every thread of the pool, faulting in
/// and copying its pages side by side (the 1,000,000-row trace's 61 MB:
/// its `simulate` 0.38 s against 0.36 s, 11 interleaved rounds). A file
/// that changed size since is read again on one thread, to its end.
fn read_bytes(path: &Path, len: u64) -> std::io::Result<Vec<u8>> {
    #[cfg(unix)]
    if len >= SIDE_BY_SIDE_FROM {
        use rayon::prelude::*;
        use std::os::unix::fs::FileExt;
        let file = std::fs::File::open(path)?;
        let mut bytes = vec![0u8; usize::try_from(len).map_err(std::io::Error::other)?];
        let read = bytes
            .par_chunks_mut(STRETCH)
            .enumerate()
            .try_for_each(|(i, stretch)| file.read_exact_at(stretch, (i * STRETCH) as u64));
        let mut past_end = [0u8; 1];
        if read.is_ok() && file.read_at(&mut past_end, len)? == 0 {
            return Ok(bytes);
        }
    }
    std::fs::read(path)
}

/// The folder a scenario file is in: the files it names are read from
/// there (an absolute path as it is).
#[derive(Debug, Clone)]
pub struct Folder(pub PathBuf);

impl Folder {
    /// The folder of the scenario file at `path`.
    pub fn of(path: &Path) -> Folder {
        Folder(path.parent().map(Path::to_path_buf).unwrap_or_default())
    }

    /// Where `rel`, as a scenario writes it, is on disk.
    pub fn resolve(&self, rel: &str) -> PathBuf {
        let p = Path::new(rel);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.0.join(p)
        }
    }
}

impl Files for Folder {
    fn read(&self, rel: &str, what: &str) -> Result<SourceText, InputError> {
        read(&self.resolve(rel), what)
    }

    /// A regular file from 8 MiB up to the size tokencast reads
    /// ([`MAX_INPUT_BYTES`]); anything else (and anything that cannot be
    /// opened) is read whole, by [`read`], which says what is wrong.
    fn blocks(&self, rel: &str, _what: &str) -> Option<Box<dyn Blocks + '_>> {
        let path = self.resolve(rel);
        let file = std::fs::File::open(&path).ok()?;
        let meta = file.metadata().ok()?;
        let size = meta.len();
        if !meta.is_file() || !(BLOCKS_FROM..=MAX_INPUT_BYTES).contains(&size) {
            return None;
        }
        Some(Box::new(FileBlocks {
            name: path.display().to_string(),
            size,
            file,
        }))
    }
}

/// Files of this many bytes or more may be read a block at a time.
const BLOCKS_FROM: u64 = 8 << 20;

/// A file on disk read a block at a time.
struct FileBlocks {
    name: String,
    size: u64,
    file: std::fs::File,
}

impl Blocks for FileBlocks {
    fn name(&self) -> &str {
        &self.name
    }

    fn size(&self) -> u64 {
        self.size
    }

    fn read_into(&mut self, buf: &mut Vec<u8>, max: usize) -> std::io::Result<usize> {
        use std::io::Read;
        buf.reserve(max);
        (&mut self.file)
            .take(u64::try_from(max).unwrap_or(u64::MAX))
            .read_to_end(buf)
    }
}

/// Finishes a set a killed import left committed around `path` (the folder
/// it is in, and the one above, where an import's session folders lie; or
/// `path` itself when it is a folder), so that what is read is whole.
pub fn settled(path: &Path) -> Result<(), InputError> {
    let start = if path.is_dir() {
        path
    } else {
        path.parent().unwrap_or(path)
    };
    for dir in start.ancestors().take(2) {
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        crate::output::journal::settle(dir)
            .map_err(|e| InputError::new(e.to_string()).with_help(e.help()))?;
    }
    Ok(())
}

/// Reads and checks the scenario at `path`, with its price book and trace.
/// `today` is the price date when the scenario sets none.
pub fn load(path: &Path, today: Option<jiff::civil::Date>) -> Result<Scenario, InputError> {
    settled(path)?;
    let src = read(path, "scenario file")?;
    Scenario::check(&src, &Folder::of(path), today)
}

/// Price books read, parsed and hashed once for many scenarios: a corpus
/// of imported sessions names one book from every session's folder, and
/// parsing a 1.5 MB book again for each of 452 sessions took 97 % of a
/// forecast's time. Safe to share between threads; a book is read by the
/// first scenario that names it while the others that do wait for it.
#[derive(Default)]
pub struct Books {
    by_path: std::sync::Mutex<std::collections::HashMap<PathBuf, std::sync::Arc<BookCell>>>,
}

/// A price book read once: its text (named by its canonical path, the same
/// for every scenario that reaches it), parsed, and its name and digest;
/// `None` when it cannot be read or parsed (each scenario naming it is
/// then loaded on its own, which reports the error where it names it).
type BookCell = std::sync::OnceLock<Option<(SourceText, crate::pricing::PriceBook, InputFile)>>;

impl Books {
    /// [`load`], with the price book the scenario names read and parsed
    /// only the first time any scenario names it.
    pub fn load(
        &self,
        path: &Path,
        today: Option<jiff::civil::Date>,
    ) -> Result<Scenario, InputError> {
        settled(path)?;
        let src = read(path, "scenario file")?;
        let folder = Folder::of(path);
        let cell = book_path(&src)
            .and_then(|rel| std::fs::canonicalize(folder.resolve(&rel)).ok())
            .map(|at| {
                let mut by_path = self.by_path.lock().unwrap_or_else(|e| e.into_inner());
                let cell = by_path.entry(at.clone()).or_default().clone();
                (at, cell)
            });
        let book = cell.as_ref().and_then(|(at, cell)| {
            cell.get_or_init(|| {
                let text = read(at, "price book").ok()?;
                let book = crate::pricing::PriceBook::parse(&text).ok()?;
                let file = crate::scenario::input_file(&text);
                Some((text, book, file))
            })
            .as_ref()
        });
        let given = Given {
            book: book.map(|(text, book, _)| (text, book)),
            book_file: book.map(|(_, _, file)| file),
            ..Given::default()
        };
        Scenario::check_with(&src, &folder, today, given)
    }

    /// The price books reached so far (one per file, however many
    /// scenarios name it and by whatever path).
    pub fn len(&self) -> usize {
        self.by_path.lock().map_or(0, |b| b.len())
    }

    /// Whether no price book was reached yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The `prices` a scenario's text names, if it reads as TOML with one.
fn book_path(src: &SourceText) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Prices {
        prices: String,
    }
    toml::from_str::<Prices>(&src.text).ok().map(|p| p.prices)
}

/// A scenario with the text of every file it was read from.
pub struct LoadedWithTexts {
    /// The checked scenario.
    pub scenario: Scenario,
    /// The scenario file.
    pub src: SourceText,
    /// Each file it named, by the name it gave them; or, when they take
    /// more than the limit asked for, their bytes together (scenario
    /// included).
    pub files: Result<std::collections::BTreeMap<String, String>, usize>,
    /// The models of its price book.
    pub models: Vec<String>,
    /// Its price book, and the name the scenario gives it.
    pub book: Option<(crate::pricing::PriceBook, String)>,
}

/// [`load`], keeping the scenario's text and each file it named while all
/// of them take at most `limit` bytes (what a page needs to carry its own
/// engine's inputs).
pub fn load_recorded(
    path: &Path,
    today: Option<jiff::civil::Date>,
    limit: usize,
) -> Result<LoadedWithTexts, InputError> {
    settled(path)?;
    let src = read(path, "scenario file")?;
    let folder = Folder::of(path);
    let recorded =
        tokencast_core::scenario::Recorded::new(&folder, limit.saturating_sub(src.text.len()));
    let scenario = Scenario::check(&src, &recorded, today)?;
    // The book as checked: kept, or read again when it was past the limit.
    let book = recorded.name_of("price book").and_then(|rel| {
        let text = match recorded.text_of("price book") {
            Some(text) => SourceText {
                name: rel.clone(),
                text,
            },
            None => tokencast_core::scenario::Files::read(&folder, &rel, "price book").ok()?,
        };
        Some((crate::pricing::PriceBook::parse(&text).ok()?, rel))
    });
    let models = book
        .as_ref()
        .map(|(b, _)| b.model_ids().map(str::to_string).collect())
        .unwrap_or_default();
    let scenario_bytes = src.text.len();
    Ok(LoadedWithTexts {
        scenario,
        src,
        files: recorded
            .into_texts()
            .map_err(|files| files.saturating_add(scenario_bytes)),
        models,
        book,
    })
}

/// [`load`] of a scenario whose text is already read, with some files in
/// memory: relative paths resolve from `base`.
pub fn check(
    src: &SourceText,
    base: &Path,
    today: Option<jiff::civil::Date>,
    given: Given,
) -> Result<Scenario, InputError> {
    Scenario::check_with(src, &Folder(base.to_path_buf()), today, given)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file read in stretches side by side is the file: every stretch
    /// lands at its own offset, a character split across two stretches
    /// included, and the bytes past the last whole stretch are read too.
    #[test]
    fn a_large_file_read_side_by_side_is_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace.csv");
        // Three-byte characters, so stretch edges (multiples of 4 MiB) fall
        // inside one; a line number on each line, so a stretch at the wrong
        // offset shows.
        let mut text = String::new();
        let mut line = 0u64;
        while (text.len() as u64) < SIDE_BY_SIDE_FROM + STRETCH as u64 + 12_345 {
            line += 1;
            text.push_str(&format!("{line},€€€,web/search\n"));
        }
        std::fs::write(&path, &text).unwrap();
        assert!(text.len() as u64 > SIDE_BY_SIDE_FROM);
        let read = read(&path, "trace file").unwrap();
        assert_eq!(read.text.len(), text.len());
        assert!(read.text == text, "the bytes read differ from the file's");
    }

    /// Bytes that are not UTF-8 in a large file are reported where they are,
    /// as for a small one.
    #[test]
    fn a_large_file_that_is_not_text_says_where() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace.csv");
        let mut bytes = "a,b\n"
            .repeat((SIDE_BY_SIDE_FROM as usize) / 4 + 10)
            .into_bytes();
        // Line 2,000,001, column 2 (after the header-like first line's
        // pattern: each line is 4 bytes).
        let at = 4 * 2_000_000 + 1;
        bytes[at] = 0xff;
        std::fs::write(&path, &bytes).unwrap();
        let e = read(&path, "trace file").unwrap_err();
        assert!(
            e.message()
                .contains("line 2000001, column 2: byte 0xff is not UTF-8"),
            "{}",
            e.message()
        );
    }
}
