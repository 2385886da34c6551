//! Content errors that name the file, the line and column, and what was
//! expected; reading and parsing one TOML file.

use super::*;

/// A content problem at a place in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentError {
    /// Path as given (relative to where the build was started when the
    /// content directory was given relatively).
    pub file: PathBuf,
    /// 1-based; 0 when the problem concerns the whole file.
    pub line: usize,
    pub column: usize,
    pub message: String,
}

impl fmt::Display for ContentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file.display(), self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.file.display(),
                self.line,
                self.column,
                self.message
            )
        }
    }
}

impl std::error::Error for ContentError {}

impl ContentError {
    pub(crate) fn whole(file: &Path, message: impl Into<String>) -> Self {
        Self {
            file: file.to_path_buf(),
            line: 0,
            column: 0,
            message: message.into(),
        }
    }

    pub(crate) fn at(file: &Path, text: &str, offset: usize, message: impl Into<String>) -> Self {
        let (line, column) = line_col(text, offset);
        Self {
            file: file.to_path_buf(),
            line,
            column,
            message: message.into(),
        }
    }
}

/// 1-based line and column of a byte offset.
pub(super) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text.as_bytes()[..offset];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = String::from_utf8_lossy(&before[line_start..])
        .chars()
        .count()
        + 1;
    (line, column)
}

/// Parses TOML text into `T`; `line_offset` shifts reported lines (front
/// matter starts after the opening `+++`).
pub fn parse_toml<T: DeserializeOwned>(
    file: &Path,
    text: &str,
    line_offset: usize,
) -> Result<T, ContentError> {
    toml::from_str(text).map_err(|e| {
        let message = e.message().trim().to_owned();
        let mut err = match e.span() {
            Some(span) => ContentError::at(file, text, span.start, message),
            None => ContentError::whole(file, message),
        };
        if err.line > 0 {
            err.line += line_offset;
        }
        err
    })
}

pub(super) fn read(file: &Path) -> Result<String, ContentError> {
    std::fs::read_to_string(file)
        .map_err(|e| ContentError::whole(file, format!("cannot read: {e}")))
}

pub(super) fn load<T: DeserializeOwned>(file: &Path) -> Result<(T, String), ContentError> {
    let text = read(file)?;
    let value = parse_toml(file, &text, 0)?;
    Ok((value, text))
}
