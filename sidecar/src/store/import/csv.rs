//! RFC 4180 records with the line each starts on, shared by the import
//! formats.

use super::{ImportError, row};

/// Splits RFC 4180 text into records, each with the line it starts on.
pub(super) fn records(text: &str) -> Result<Vec<(u64, Vec<String>)>, ImportError> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    let mut line = 1u64;
    while chars.peek().is_some() {
        let start = line;
        let mut fields = Vec::new();
        let mut field = String::new();
        loop {
            // At the start of a field.
            if chars.peek() == Some(&'"') {
                chars.next();
                loop {
                    match chars.next() {
                        None => return Err(row(start, "a quoted field is not closed")),
                        Some('"') if chars.peek() == Some(&'"') => {
                            chars.next();
                            field.push('"');
                        }
                        Some('"') => break,
                        Some(c) => {
                            if c == '\n' {
                                line += 1;
                            }
                            field.push(c);
                        }
                    }
                }
                match chars.peek() {
                    None | Some(',' | '\n' | '\r') => {}
                    Some(_) => {
                        return Err(row(line, "a quoted field is followed by text"));
                    }
                }
            } else {
                while let Some(&c) = chars.peek() {
                    if matches!(c, ',' | '\n' | '\r') {
                        break;
                    }
                    if c == '"' {
                        return Err(row(line, "a quote inside an unquoted field"));
                    }
                    field.push(c);
                    chars.next();
                }
            }
            fields.push(std::mem::take(&mut field));
            match chars.next() {
                Some(',') => continue,
                Some('\r') => {
                    if chars.peek() == Some(&'\n') {
                        chars.next();
                    }
                    line += 1;
                    break;
                }
                Some('\n') => {
                    line += 1;
                    break;
                }
                None => break,
                Some(_) => unreachable!("fields end at a separator"),
            }
        }
        out.push((start, fields));
    }
    Ok(out)
}
