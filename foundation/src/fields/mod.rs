//! The one reader of JSON request bodies. Every typed request of the API is read through
//! [`Fields`], so each field answers with the spec's error code and `param` the same way:
//! absent and `null` are the same; a value of the wrong type is the field's own code (or
//! `invalid_field`); a required text that is missing or blank is `missing_field`.
//!
//! Enumerations implement [`Choice`]: their wire names, the code a wrong name answers with,
//! and the parse. `Fields::choice` reads any of them.
//!
//! A request that is one struct (its JSON, its schema and its rules) implements [`Body`] and is
//! read by [`body::read`], which answers each field the same way from the struct's own schema.

use serde_json::{Map, Value};

use crate::error::{Code, Error, Result};

pub mod body;
pub use body::Body;

/// An enumeration sent as a string: its names on the wire and the code a wrong value gets.
pub trait Choice: Sized + Copy {
    /// Every accepted wire name, in the order an error message lists them.
    const NAMES: &'static [&'static str];
    /// The error code of a value outside [`Choice::NAMES`] (or not a string).
    const CODE: Code;
    /// The value named `s`, if any.
    fn parse(s: &str) -> Option<Self>;
}

/// The fields of one JSON object body.
#[derive(Debug, Clone, Copy)]
pub struct Fields<'a> {
    body: &'a Map<String, Value>,
}

impl<'a> Fields<'a> {
    /// The body as fields; anything but a JSON object is `invalid_json`.
    pub fn of(body: &'a Value) -> Result<Self> {
        body.as_object()
            .map(|body| Fields { body })
            .ok_or_else(|| Error::new(Code::InvalidJson, "The request body must be a JSON object."))
    }

    /// The field's value, `None` when absent or `null`.
    pub fn value(&self, name: &str) -> Option<&'a Value> {
        self.body.get(name).filter(|v| !v.is_null())
    }

    /// Whether the field is present and not `null`.
    pub fn has(&self, name: &str) -> bool {
        self.value(name).is_some()
    }

    /// The names of every field sent, in order.
    pub fn names(&self) -> impl Iterator<Item = &'a str> {
        self.body.keys().map(String::as_str)
    }

    /// An optional string; another type is `code`.
    pub fn str_or(&self, name: &str, code: Code) -> Result<Option<&'a str>> {
        match self.value(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(wrong(code, name, "a string")),
        }
    }

    /// An optional string; another type is `invalid_field`.
    pub fn str(&self, name: &str) -> Result<Option<&'a str>> {
        self.str_or(name, Code::InvalidField)
    }

    /// A required string: missing, `null` or blank is `missing_field`.
    pub fn required_str(&self, name: &str) -> Result<&'a str> {
        match self.str(name)? {
            Some(s) if !s.trim().is_empty() => Ok(s),
            _ => Err(Error::missing(name)),
        }
    }

    /// An optional boolean; another type is `code`.
    pub fn bool(&self, name: &str, code: Code) -> Result<Option<bool>> {
        match self.value(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(wrong(code, name, "true or false")),
        }
    }

    /// An optional number; another type (or a non-finite one) is `code`.
    pub fn f64(&self, name: &str, code: Code) -> Result<Option<f64>> {
        match self.value(name) {
            None => Ok(None),
            Some(Value::Number(n)) => n
                .as_f64()
                .filter(|f| f.is_finite())
                .map(Some)
                .ok_or_else(|| wrong(code, name, "a number")),
            Some(_) => Err(wrong(code, name, "a number")),
        }
    }

    /// An optional integer; a fraction or another type is `code`. As in JSON Schema, a number
    /// with no fractional part (`1500.0`) is an integer.
    pub fn i64(&self, name: &str, code: Code) -> Result<Option<i64>> {
        match self.value(name) {
            None => Ok(None),
            Some(Value::Number(n)) => n
                .as_i64()
                .or_else(|| {
                    n.as_f64()
                        .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
                        .map(|f| f as i64)
                })
                .map(Some)
                .ok_or_else(|| wrong(code, name, "an integer")),
            Some(_) => Err(wrong(code, name, "an integer")),
        }
    }

    /// An optional JSON object; another type is `code`.
    pub fn object(&self, name: &str, code: Code) -> Result<Option<&'a Map<String, Value>>> {
        match self.value(name) {
            None => Ok(None),
            Some(Value::Object(o)) => Ok(Some(o)),
            Some(_) => Err(wrong(code, name, "an object")),
        }
    }

    /// An optional enumeration value; a name outside `E::NAMES`, or not a string, is `E::CODE`.
    /// Names match without regard to ASCII case.
    pub fn choice<E: Choice>(&self, name: &str) -> Result<Option<E>> {
        let Some(s) = self.str_or(name, E::CODE)? else {
            return Ok(None);
        };
        E::parse(s)
            .or_else(|| {
                E::NAMES
                    .iter()
                    .find(|n| n.eq_ignore_ascii_case(s))
                    .and_then(|n| E::parse(n))
            })
            .map(Some)
            .ok_or_else(|| {
                Error::new(
                    E::CODE,
                    format!("`{name}` must be one of: {}.", E::NAMES.join(", ")),
                )
                .param(name)
            })
    }
}

fn wrong(code: Code, name: &str, expected: &str) -> Error {
    Error::new(code, format!("`{name}` must be {expected}.")).param(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Kind {
        Video,
        Image,
    }

    impl Choice for Kind {
        const NAMES: &'static [&'static str] = &["video", "image"];
        const CODE: Code = Code::InvalidKind;
        fn parse(s: &str) -> Option<Self> {
            match s {
                "video" => Some(Kind::Video),
                "image" => Some(Kind::Image),
                _ => None,
            }
        }
    }

    fn code_and_param(e: Error) -> (Code, Option<String>) {
        (e.code, e.param)
    }

    #[test]
    fn a_body_that_is_not_an_object_is_invalid_json() {
        for body in [json!([1]), json!("x"), json!(null), json!(3)] {
            assert_eq!(Fields::of(&body).unwrap_err().code, Code::InvalidJson);
        }
    }

    #[test]
    fn an_integral_float_is_an_integer_and_a_fraction_is_not() {
        let body = json!({"a": 1500.0, "b": -3, "c": 1.5, "d": "7"});
        let f = Fields::of(&body).unwrap();
        assert_eq!(f.i64("a", Code::InvalidValue).unwrap(), Some(1500));
        assert_eq!(f.i64("b", Code::InvalidValue).unwrap(), Some(-3));
        for name in ["c", "d"] {
            assert_eq!(
                code_and_param(f.i64(name, Code::InvalidValue).unwrap_err()),
                (Code::InvalidValue, Some(name.into()))
            );
        }
    }

    #[test]
    fn null_reads_as_absent() {
        let body = json!({"a": null});
        let f = Fields::of(&body).unwrap();
        assert!(!f.has("a"));
        assert_eq!(f.str("a").unwrap(), None);
        assert_eq!(f.bool("a", Code::InvalidValue).unwrap(), None);
    }

    #[test]
    fn required_text_that_is_blank_is_missing_field() {
        let body = json!({"id": "  ", "n": 1});
        let f = Fields::of(&body).unwrap();
        assert_eq!(
            code_and_param(f.required_str("id").unwrap_err()),
            (Code::MissingField, Some("id".into()))
        );
        assert_eq!(
            code_and_param(f.required_str("other").unwrap_err()),
            (Code::MissingField, Some("other".into()))
        );
        assert_eq!(
            code_and_param(f.required_str("n").unwrap_err()),
            (Code::InvalidField, Some("n".into()))
        );
    }

    #[test]
    fn a_wrong_type_answers_with_the_fields_code() {
        let body = json!({"flag": "yes", "n": 1.5, "o": [], "x": "1"});
        let f = Fields::of(&body).unwrap();
        assert_eq!(
            code_and_param(f.bool("flag", Code::InvalidFaceless).unwrap_err()),
            (Code::InvalidFaceless, Some("flag".into()))
        );
        assert_eq!(
            f.i64("n", Code::InvalidLimit).unwrap_err().code,
            Code::InvalidLimit
        );
        assert_eq!(f.f64("n", Code::InvalidLimit).unwrap(), Some(1.5));
        assert_eq!(
            f.object("o", Code::InvalidMetadata).unwrap_err().code,
            Code::InvalidMetadata
        );
        assert_eq!(
            f.f64("x", Code::InvalidDuration).unwrap_err().code,
            Code::InvalidDuration
        );
    }

    #[test]
    fn choices_parse_names_in_any_case_and_list_them_when_wrong() {
        let body = json!({"a": "Video", "b": "audio", "c": 3});
        let f = Fields::of(&body).unwrap();
        assert_eq!(f.choice::<Kind>("a").unwrap(), Some(Kind::Video));
        let e = f.choice::<Kind>("b").unwrap_err();
        assert_eq!((e.code, e.param.as_deref()), (Code::InvalidKind, Some("b")));
        assert!(e.message.contains("video, image"), "{}", e.message);
        assert_eq!(f.choice::<Kind>("c").unwrap_err().code, Code::InvalidKind);
        assert_eq!(f.choice::<Kind>("absent").unwrap(), None);
        let _ = Kind::Image;
    }
}
