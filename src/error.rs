//! Everything that can stop a command, and how it reaches the user.
//!
//! Problems with the user's input are the engine's [`InputError`] (located,
//! with help); files that cannot be written are [`crate::output::OutputError`].
//! [`AppError`] is either, with the exit code and the text for stderr.

use thiserror::Error;
pub use tokencast_core::error::*;

/// Everything that can stop a command.
#[derive(Debug, Error)]
pub enum AppError {
    /// The scenario, price book, trace or arguments are wrong.
    #[error(transparent)]
    Input(#[from] InputError),
    /// Files could not be written.
    #[error(transparent)]
    Output(#[from] crate::output::OutputError),
    /// A renderer failed (a bug: please report it).
    #[error("could not render the report: {0}")]
    Render(String),
    /// Ctrl-C.
    #[error("interrupted: nothing was written")]
    Interrupted,
}

impl AppError {
    /// 2 for anything the user can fix in their input or arguments, 130 for
    /// Ctrl-C, 1 otherwise.
    pub fn exit_code(&self) -> u8 {
        match self {
            AppError::Input(_) => 2,
            AppError::Output(crate::output::OutputError::Interrupted) => 130,
            AppError::Output(e) if e.is_user_error() => 2,
            AppError::Output(_) | AppError::Render(_) => 1,
            AppError::Interrupted => 130,
        }
    }

    /// The error for stderr: a miette snippet for input errors (colour only
    /// on a terminal), one line plus help otherwise.
    pub fn render(&self) -> String {
        use std::io::IsTerminal;
        match self {
            AppError::Input(input) => {
                let theme = if std::io::stderr().is_terminal() {
                    miette::GraphicalTheme::unicode()
                } else {
                    miette::GraphicalTheme::unicode_nocolor()
                };
                let handler = miette::GraphicalReportHandler::new_themed(theme)
                    .with_width(100)
                    .with_links(false)
                    .with_wrap_lines(false);
                let mut out = String::new();
                match handler.render_report(&mut out, input) {
                    Ok(()) => format!("error: {}", out.trim_start_matches(['×', ' '])),
                    Err(_) => format!("error: {}", input.message()),
                }
            }
            AppError::Output(o) => format!("error: {o}\n  help: {}", o.help()),
            AppError::Render(_) | AppError::Interrupted => format!("error: {self}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_far_into_a_long_line_is_shown_as_an_excerpt() {
        let text = format!("a = 1\n{}bad = x\n", " ".repeat(70_000));
        let at = text.find("bad").unwrap();
        let e = InputError::at("wrong", "f.toml", &text, at..at + 3, "here");
        let rendered = AppError::Input(e).render();
        assert!(
            rendered.contains("f.toml (line 2, column 70001; excerpt)"),
            "{rendered}"
        );
        assert!(rendered.contains("bad = x"), "{rendered}");
    }

    #[test]
    fn a_span_inside_a_multibyte_character_is_widened_not_a_panic() {
        // Found by the saved_json fuzz target: a file cut after a 'Б'.
        let text = format!("{{\n  \"{}\": \"x\",\n  \"doБ", "c".repeat(300));
        let inside = text.len() - 1;
        for (name, t) in [("short.json", "a\"Б".to_string()), ("long.json", text)] {
            let at = if name == "short.json" {
                t.len() - 1
            } else {
                inside
            };
            let e = InputError::at("cut", name, &t, at..at, "here");
            let rendered = AppError::Input(e).render();
            assert!(rendered.contains("cut"), "{rendered}");
        }
    }
}
