//! The arithmetic evaluator behind `calculate`: a tokenizer and a recursive-descent parser
//! that evaluates as it parses. Owns the grammar, hostile-input limits and positioned
//! error messages. Does not own number formatting or the tool wrapper.
//!
//! Grammar (lowest to highest precedence):
//!   expr    := term (('+' | '-') term)*
//!   term    := unary (('*' | '/' | '%') unary)*
//!   unary   := ('-' | '+') unary | power
//!   power   := primary ('^' unary)?
//!   primary := number | constant | function '(' expr (',' expr)* ')' | '(' expr ')'
//! So `^` is right-associative (2^3^2 = 512) and binds tighter than unary minus
//! (-2^2 = -4, the usual mathematical convention, as in Python), while 2^-1 = 0.5 works.
//! `**` is accepted as `^`. `%` is the remainder with the sign of the dividend.
//! Positions in messages are 1-based character columns.

/// Longest accepted expression, in characters.
pub const MAX_LEN: usize = 1000;
/// Deepest nesting of parentheses, signs and exponents; far below what would overflow
/// the stack.
pub const MAX_DEPTH: usize = 64;

const FUNCTIONS: &[&str] = &[
    "sqrt", "abs", "round", "floor", "ceil", "ln", "log10", "log2", "sin", "cos", "tan", "asin",
    "acos", "atan", "exp", "min", "max",
];

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Num(f64),
    Ident(String),
    Op(char),
    LParen,
    RParen,
    Comma,
    End,
}

#[derive(Debug, Clone)]
struct Token {
    kind: Kind,
    /// 1-based column of the first character.
    pos: usize,
    text: String,
}

/// Evaluate `input`, or explain what is wrong and where.
pub fn evaluate(input: &str) -> Result<f64, String> {
    let len = input.chars().count();
    if len > MAX_LEN {
        return Err(format!(
            "expression is too long ({len} characters; the limit is {MAX_LEN})"
        ));
    }
    if input.trim().is_empty() {
        return Err("expression is empty".to_owned());
    }
    let tokens = tokenize(input)?;
    let mut parser = Parser {
        tokens,
        next: 0,
        depth: 0,
    };
    let value = parser.expr()?;
    let tok = parser.peek();
    if tok.kind != Kind::End {
        return Err(unexpected(tok));
    }
    Ok(value)
}

fn tokenize(input: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = input.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let pos = i + 1;
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let kind = if c.is_ascii_digit() || c == '.' {
            i = scan_number(&chars, i);
            let text: String = chars[start..i].iter().collect();
            match text.parse::<f64>() {
                Ok(x) if x.is_finite() => Kind::Num(x),
                Ok(_) => return Err(format!("number '{text}' at {pos} is too large")),
                Err(_) => return Err(format!("malformed number '{text}' at {pos}")),
            }
        } else if c.is_ascii_alphabetic() {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            Kind::Ident(
                chars[start..i]
                    .iter()
                    .collect::<String>()
                    .to_ascii_lowercase(),
            )
        } else {
            i += 1;
            match c {
                '*' if chars.get(i) == Some(&'*') => {
                    i += 1;
                    Kind::Op('^')
                }
                '+' | '-' | '*' | '/' | '%' | '^' => Kind::Op(c),
                '(' => Kind::LParen,
                ')' => Kind::RParen,
                ',' => Kind::Comma,
                _ => return Err(format!("unexpected character {c:?} at {pos}")),
            }
        };
        tokens.push(Token {
            kind,
            pos,
            text: chars[start..i].iter().collect(),
        });
    }
    tokens.push(Token {
        kind: Kind::End,
        pos: chars.len() + 1,
        text: String::new(),
    });
    Ok(tokens)
}

/// Digits with an optional fraction, then an exponent only if digits follow it, so that
/// "2e" is left for the parser to reject rather than swallowed.
fn scan_number(chars: &[char], mut i: usize) -> usize {
    let digits = |i: &mut usize| {
        while *i < chars.len() && chars[*i].is_ascii_digit() {
            *i += 1;
        }
    };
    digits(&mut i);
    if chars.get(i) == Some(&'.') {
        i += 1;
        digits(&mut i);
    }
    if matches!(chars.get(i), Some('e' | 'E')) {
        let mut j = i + 1;
        if matches!(chars.get(j), Some('+' | '-')) {
            j += 1;
        }
        if chars.get(j).is_some_and(char::is_ascii_digit) {
            i = j;
            digits(&mut i);
        }
    }
    i
}

fn unexpected(tok: &Token) -> String {
    match tok.kind {
        Kind::End => format!("unexpected end of expression at {}", tok.pos),
        _ => format!("unexpected '{}' at {}", tok.text, tok.pos),
    }
}

struct Parser {
    tokens: Vec<Token>,
    next: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> &Token {
        // The End token is never consumed, so `next` stays in bounds; fall back to it anyway.
        let last = self.tokens.len().saturating_sub(1);
        &self.tokens[self.next.min(last)]
    }

    fn bump(&mut self) -> Token {
        let tok = self.peek().clone();
        if tok.kind != Kind::End {
            self.next += 1;
        }
        tok
    }

    fn enter(&mut self, pos: usize) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!(
                "expression is nested too deeply at {pos} (limit {MAX_DEPTH})"
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn expr(&mut self) -> Result<f64, String> {
        let mut acc = self.term()?;
        while let Kind::Op(op @ ('+' | '-')) = self.peek().kind {
            let pos = self.bump().pos;
            let rhs = self.term()?;
            acc = finite(if op == '+' { acc + rhs } else { acc - rhs }, pos)?;
        }
        Ok(acc)
    }

    fn term(&mut self) -> Result<f64, String> {
        let mut acc = self.unary()?;
        while let Kind::Op(op @ ('*' | '/' | '%')) = self.peek().kind {
            let pos = self.bump().pos;
            let rhs = self.unary()?;
            if op != '*' && rhs == 0.0 {
                return Err(format!("division by zero at {pos}"));
            }
            let value = match op {
                '*' => acc * rhs,
                '/' => acc / rhs,
                _ => acc % rhs,
            };
            acc = finite(value, pos)?;
        }
        Ok(acc)
    }

    fn unary(&mut self) -> Result<f64, String> {
        if let Kind::Op(sign @ ('+' | '-')) = self.peek().kind {
            let pos = self.bump().pos;
            self.enter(pos)?;
            let value = self.unary()?;
            self.leave();
            return Ok(if sign == '-' { -value } else { value });
        }
        self.power()
    }

    fn power(&mut self) -> Result<f64, String> {
        let base = self.primary()?;
        if self.peek().kind != Kind::Op('^') {
            return Ok(base);
        }
        let pos = self.bump().pos;
        self.enter(pos)?;
        let exponent = self.unary()?;
        self.leave();
        finite(base.powf(exponent), pos)
    }

    fn primary(&mut self) -> Result<f64, String> {
        let tok = self.bump();
        match tok.kind {
            Kind::Num(x) => Ok(x),
            Kind::LParen => {
                self.enter(tok.pos)?;
                let value = self.expr()?;
                self.expect_close(tok.pos)?;
                self.leave();
                Ok(value)
            }
            Kind::Ident(ref name) => match name.as_str() {
                "pi" => Ok(std::f64::consts::PI),
                "e" => Ok(std::f64::consts::E),
                f if FUNCTIONS.contains(&f) => self.call(f, tok.pos),
                "log" => Err(format!(
                    "'log' at {} is ambiguous; use ln, log10 or log2",
                    tok.pos
                )),
                _ => Err(format!(
                    "unknown name '{}' at {}; known: pi, e, {}",
                    tok.text,
                    tok.pos,
                    FUNCTIONS.join(", ")
                )),
            },
            _ => Err(unexpected(&tok)),
        }
    }

    fn expect_close(&mut self, open_pos: usize) -> Result<(), String> {
        let tok = self.bump();
        match tok.kind {
            Kind::RParen => Ok(()),
            Kind::End => Err(format!("missing ')' for the '(' at {open_pos}")),
            _ => Err(unexpected(&tok)),
        }
    }

    fn call(&mut self, name: &str, pos: usize) -> Result<f64, String> {
        let open = self.bump();
        if open.kind != Kind::LParen {
            return Err(format!(
                "function '{name}' at {pos} needs parentheses, e.g. {name}(2)"
            ));
        }
        self.enter(open.pos)?;
        let mut args = vec![self.expr()?];
        while self.peek().kind == Kind::Comma {
            self.bump();
            args.push(self.expr()?);
        }
        self.expect_close(open.pos)?;
        self.leave();
        finite(apply(name, &args, pos)?, pos)
    }
}

fn apply(name: &str, args: &[f64], pos: usize) -> Result<f64, String> {
    let variadic =
        |fold: fn(f64, f64) -> f64| args.iter().copied().reduce(fold).unwrap_or(f64::NAN);
    match name {
        "min" => return Ok(variadic(f64::min)),
        "max" => return Ok(variadic(f64::max)),
        _ => {}
    }
    let &[x] = args else {
        return Err(format!(
            "function '{name}' at {pos} takes 1 argument, got {}",
            args.len()
        ));
    };
    Ok(match name {
        "sqrt" => x.sqrt(),
        "abs" => x.abs(),
        "round" => x.round(),
        "floor" => x.floor(),
        "ceil" => x.ceil(),
        "ln" => x.ln(),
        "log10" => x.log10(),
        "log2" => x.log2(),
        "sin" => x.sin(),
        "cos" => x.cos(),
        "tan" => x.tan(),
        "asin" => x.asin(),
        "acos" => x.acos(),
        "atan" => x.atan(),
        _ => x.exp(),
    })
}

fn finite(x: f64, pos: usize) -> Result<f64, String> {
    if x.is_finite() {
        Ok(x)
    } else {
        Err(format!(
            "the result at {pos} is not a finite number (overflow, or undefined such as sqrt(-1))"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenizes_scientific_literals_and_double_star() {
        assert_eq!(evaluate("1.5e3"), Ok(1500.0));
        assert_eq!(evaluate("2E-1"), Ok(0.2));
        assert_eq!(evaluate(".5"), Ok(0.5));
        assert_eq!(evaluate("2**3"), Ok(8.0));
        assert_eq!(evaluate("2e"), Err("unexpected 'e' at 2".to_owned()));
    }

    #[test]
    fn depth_limit_is_exact() {
        let ok = format!("{}1{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
        assert_eq!(evaluate(&ok), Ok(1.0));
        let deep = format!(
            "{}1{}",
            "(".repeat(MAX_DEPTH + 1),
            ")".repeat(MAX_DEPTH + 1)
        );
        assert!(evaluate(&deep).unwrap_err().contains("nested too deeply"));
    }
}
