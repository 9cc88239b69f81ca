//! The wire of `POST /v1/typography` and `GET /v1/typography/{id}`: the request body read through
//! [`Fields`] into a validated [`TypographyRequest`], with the spec's code and `param` per field,
//! and the OpenAPI schemas of the body and the result. The schemas carry the same limits as the
//! reader (the `reader_and_schema_agree_on_the_limits` test holds them together).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use typography::design::{self, Cta, Rgb, Role, TimedWord};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

use foundation::error::{Code, Error};
use foundation::fields::{Choice, Fields};

/// Longest `text`, characters.
pub(crate) const MAX_TEXT: usize = 2000;
/// Longest `quote`, characters.
pub(crate) const MAX_QUOTE: usize = 300;
/// Longest `wait`, seconds.
pub(crate) const MAX_WAIT: u64 = 100;
/// Most `words` items.
pub(crate) const MAX_WORDS: usize = 2000;
/// Most brand colours.
pub(crate) const MAX_COLORS: usize = 8;
/// Longest `cta` line, characters.
pub(crate) const MAX_CTA: usize = 200;
/// Longest `look`, characters.
pub(crate) const MAX_LOOK: usize = 64;

/// `role` as a request field: typography's [`Role`], read with its own error code.
#[derive(Debug, Clone, Copy)]
struct RoleField(Role);

impl Choice for RoleField {
    const NAMES: &'static [&'static str] = Role::NAMES;
    const CODE: Code = Code::InvalidRole;
    fn parse(s: &str) -> Option<Self> {
        Role::parse(s.trim()).map(RoleField)
    }
}

/// A validated request.
#[derive(Debug, Clone, PartialEq)]
pub struct TypographyRequest {
    pub role: Role,
    pub text: String,
    pub quote: Option<String>,
    pub language: String,
    pub words: Vec<TimedWord>,
    pub duration: Option<f64>,
    pub show_narrator: bool,
    pub exact: bool,
    pub colors: Vec<Rgb>,
    pub cta: Option<Cta>,
    pub look: Option<String>,
    pub wait: u64,
}

fn invalid(code: Code, param: &str, msg: impl Into<String>) -> Error {
    Error::new(code, msg).param(param)
}

/// Parses `wait` (integer seconds 0–100) from a JSON value (body) — also used for the query.
pub fn parse_wait(v: Option<&Value>) -> Result<u64, Error> {
    let bad = || {
        invalid(
            Code::InvalidWait,
            "wait",
            format!("`wait` must be an integer number of seconds from 0 to {MAX_WAIT}."),
        )
    };
    match v {
        None | Some(Value::Null) => Ok(0),
        // JSON Schema's `integer` includes `5.0`: a number with no fraction is whole seconds.
        Some(Value::Number(n)) => match n.as_f64() {
            Some(w) if w.fract() == 0.0 && (0.0..=MAX_WAIT as f64).contains(&w) => Ok(w as u64),
            _ => Err(bad()),
        },
        Some(Value::String(s)) => match s.trim().parse::<u64>() {
            Ok(w) if w <= MAX_WAIT => Ok(w),
            _ => Err(bad()),
        },
        Some(_) => Err(bad()),
    }
}

/// Validates a request body against the spec's rules and limits.
pub fn validate(body: &Value) -> Result<TypographyRequest, Error> {
    let f = Fields::of(body)?;
    if f.str_or("role", Code::InvalidRole)?
        .is_none_or(|r| r.trim().is_empty())
    {
        return Err(Error::missing("role"));
    }
    let role = f.choice::<RoleField>("role")?.expect("role is present").0;
    let text = f.required_str("text")?.to_string();
    let n = text.chars().count();
    if n > MAX_TEXT {
        return Err(invalid(
            Code::TextTooLong,
            "text",
            format!("`text` has {n} characters; the limit is {MAX_TEXT}."),
        ));
    }
    let quote = f.str("quote")?.map(str::to_string);
    if let Some(n) = quote.as_ref().map(|q| q.chars().count())
        && n > MAX_QUOTE
    {
        return Err(invalid(
            Code::QuoteTooLong,
            "quote",
            format!("`quote` has {n} characters; the limit is {MAX_QUOTE}."),
        ));
    }
    let duration = match f.f64("duration", Code::InvalidDuration)? {
        Some(d) if !(1.0..=design::MAX_DURATION).contains(&d) => {
            return Err(invalid(
                Code::InvalidDuration,
                "duration",
                "`duration` must be a number of seconds from 1 to 60.",
            ));
        }
        d => d,
    };
    let language =
        language(&f)?.unwrap_or_else(|| detected_code(quote.as_deref().unwrap_or(&text)));
    Ok(TypographyRequest {
        role,
        text,
        quote,
        language,
        words: words(f.value("words"))?,
        duration,
        show_narrator: f
            .bool("show_narrator", Code::InvalidField)?
            .unwrap_or(false),
        exact: f.bool("exact", Code::InvalidField)?.unwrap_or(false),
        colors: colors(&f)?,
        cta: cta(&f)?,
        look: look(f.value("look"))?,
        wait: parse_wait(f.value("wait"))?,
    })
}

/// `language`: a code such as `vi` or `en`, lowercased; `None` when the request names none.
fn language(f: &Fields) -> Result<Option<String>, Error> {
    let Some(l) = f.str("language")? else {
        return Ok(None);
    };
    let l = l.trim();
    let ok = (2..=35).contains(&l.len())
        && l.chars()
            .all(|c| c.is_ascii_alphabetic() || c == '-' || c == '_');
    if !ok {
        return Err(invalid(
            Code::InvalidLanguage,
            "language",
            "`language` must be a language code such as `vi` or `en`.",
        ));
    }
    Ok(Some(l.to_ascii_lowercase()))
}

/// The language code of the words to set, when the request names none: the text's own
/// (`vi` or `en`, [`foundation::language::detect`]) in place of the spec's default `vi`.
fn detected_code(text: &str) -> String {
    match foundation::language::detect(text).language() {
        foundation::model::Language::Vietnamese => "vi".into(),
        foundation::model::Language::English => "en".into(),
    }
}

/// `words`: at most 2000 `{word, start, end}` with 0 ≤ start ≤ end ≤ 60.
fn words(v: Option<&Value>) -> Result<Vec<TimedWord>, Error> {
    let items = match v {
        None => return Ok(Vec::new()),
        Some(Value::Array(items)) if items.len() <= MAX_WORDS => items,
        Some(Value::Array(_)) => {
            return Err(invalid(
                Code::InvalidWords,
                "words",
                format!("`words` may hold at most {MAX_WORDS} items."),
            ));
        }
        Some(_) => {
            return Err(invalid(
                Code::InvalidWords,
                "words",
                "`words` must be an array of {word, start, end}.",
            ));
        }
    };
    items
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let bad =
                |why: &str| invalid(Code::InvalidWords, "words", format!("`words[{i}]` {why}."));
            let word = w
                .get("word")
                .and_then(Value::as_str)
                .ok_or_else(|| bad("needs a `word` string"))?;
            let start = w
                .get("start")
                .and_then(Value::as_f64)
                .ok_or_else(|| bad("needs a numeric `start`"))?;
            let end = w
                .get("end")
                .and_then(Value::as_f64)
                .ok_or_else(|| bad("needs a numeric `end`"))?;
            if !(start.is_finite() && end.is_finite() && start >= 0.0 && end >= start) {
                return Err(bad("needs 0 ≤ start ≤ end (seconds)"));
            }
            if end > design::MAX_DURATION {
                return Err(bad("ends after 60 s, the longest design"));
            }
            Ok(TimedWord {
                word: word.to_string(),
                start,
                end,
            })
        })
        .collect()
}

/// `brand.colors`: at most 8 `#RRGGBB`, main colour first.
fn colors(f: &Fields) -> Result<Vec<Rgb>, Error> {
    let Some(brand) = f.object("brand", Code::InvalidBrand)? else {
        return Ok(Vec::new());
    };
    let bad_list = || {
        invalid(
            Code::InvalidBrand,
            "brand.colors",
            format!(
                "`brand.colors` must be an array of at most {MAX_COLORS} `#RRGGBB` colours, main colour first."
            ),
        )
    };
    match brand.get("colors") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(cs)) if cs.len() <= MAX_COLORS => cs
            .iter()
            .map(|c| {
                c.as_str()
                    .and_then(|s| Rgb::parse(s.trim()))
                    .ok_or_else(|| {
                        invalid(
                            Code::InvalidBrand,
                            "brand.colors",
                            "`brand.colors` items must be `#RRGGBB` strings.",
                        )
                    })
            })
            .collect(),
        Some(_) => Err(bad_list()),
    }
}

/// `cta`: contact lines of at most 200 characters each.
fn cta(f: &Fields) -> Result<Option<Cta>, Error> {
    let Some(c) = f.object("cta", Code::InvalidField)? else {
        return Ok(None);
    };
    let line = |k: &str| -> Result<String, Error> {
        match c.get(k) {
            None | Some(Value::Null) => Ok(String::new()),
            Some(Value::String(s)) if s.chars().count() <= MAX_CTA => Ok(s.trim().to_string()),
            Some(_) => Err(invalid(
                Code::InvalidField,
                &format!("cta.{k}"),
                format!("`cta.{k}` must be a string of at most {MAX_CTA} characters."),
            )),
        }
    };
    Ok(Some(Cta {
        company_name: line("company_name")?,
        phone: line("phone")?,
        email: line("email")?,
    }))
}

/// `look`: 1 to 64 letters, digits, `-` or `_`.
fn look(v: Option<&Value>) -> Result<Option<String>, Error> {
    match v {
        None => Ok(None),
        Some(Value::String(l))
            if (1..=MAX_LOOK).contains(&l.len())
                && l.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') =>
        {
            Ok(Some(l.clone()))
        }
        Some(_) => Err(invalid(
            Code::InvalidLook,
            "look",
            "`look` must be 1 to 64 letters, digits, `-` or `_`.",
        )),
    }
}

/// `role` on the wire: one of [`Role::NAMES`].
pub(crate) struct RoleName;

impl PartialSchema for RoleName {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(Role::NAMES.iter().copied()))
            .description(Some("What is designed."))
            .into()
    }
}

impl ToSchema for RoleName {}

/// The body of `POST /v1/typography`. Absent and `null` fields are the same.
#[derive(ToSchema)]
#[allow(dead_code)] // a schema: requests are read by [`validate`]
pub struct TypographyBody {
    role: RoleName,
    /// The copy to design (not blank).
    #[schema(min_length = 1, max_length = 2000, pattern = r"\S")]
    text: String,
    /// A quote set with the text.
    #[schema(max_length = 300)]
    quote: Option<String>,
    /// Language code; when absent, the language of the words to set (`vi` or `en`, detected).
    #[schema(pattern = r"^\s*[A-Za-z_-]{2,35}\s*$", example = "en")]
    language: Option<String>,
    /// Word timings of the narration (seconds, 0 ≤ start ≤ end ≤ 60).
    #[schema(max_items = 2000)]
    words: Option<Vec<typography::TimedWord>>,
    /// Seconds, 1 to 60.
    #[schema(minimum = 1, maximum = 60)]
    duration: Option<f64>,
    show_narrator: Option<bool>,
    /// Keep the text exactly as written.
    exact: Option<bool>,
    brand: Option<Brand>,
    /// Contact lines for `cta_poster`.
    cta: Option<CtaLines>,
    /// A named look.
    #[schema(min_length = 1, max_length = 64, pattern = "^[A-Za-z0-9_-]+$")]
    look: Option<String>,
    /// Seconds to wait for the result before answering 202 `processing`.
    #[schema(minimum = 0, maximum = 100)]
    wait: Option<u64>,
}

/// Brand colours, main colour first.
#[derive(ToSchema)]
#[allow(dead_code)]
pub struct Brand {
    #[schema(max_items = 8)]
    colors: Option<Vec<HexColor>>,
}

/// A colour `#RRGGBB`.
pub(crate) struct HexColor;

impl PartialSchema for HexColor {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .pattern(Some(r"^\s*#[0-9A-Fa-f]{6}\s*$"))
            .description(Some("A colour `#RRGGBB`."))
            .into()
    }
}

impl ToSchema for HexColor {}

/// Contact details for `cta_poster`.
#[derive(ToSchema)]
#[allow(dead_code)]
pub(crate) struct CtaLines {
    #[schema(max_length = 200)]
    company_name: Option<String>,
    #[schema(max_length = 200)]
    phone: Option<String>,
    #[schema(max_length = 200)]
    email: Option<String>,
}

/// `status` of a typography result (a failed design answers 500 `typography_failed`; its
/// stored record says `failed`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TypographyStatus {
    Processing,
    Completed,
    Failed,
}

/// A typography result: `processing` until the design is made, then `completed` with its files.
/// The same type is the reply, the stored record and what a waiting caller receives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TypographyResult {
    /// Always `typography`.
    pub object: String,
    /// `typo_` + 24 hex.
    pub id: String,
    pub status: TypographyStatus,
    #[schema(value_type = RoleName)]
    pub role: String,
    pub language: String,
    pub look: Option<String>,
    pub lines: Vec<String>,
    pub canvas: Canvas,
    pub preview_url: Option<String>,
    pub objects: Vec<TypographyObject>,
    pub credits_charged: i64,
    pub created_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub composition_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brand: Option<BrandApplied>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warnings: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    /// Why a failed design failed (stored records only; the API answers 500 instead).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(ignore)]
    pub error: Option<TypographyError>,
}

/// The `{code, message}` of a failed design.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TypographyError {
    pub code: String,
    pub message: String,
}

/// The 720×1280 canvas and its safe band.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Canvas {
    pub width: u32,
    pub height: u32,
    pub safe_top: f64,
    pub safe_bottom: f64,
}

impl Canvas {
    /// The canvas every design is made on (`typography::canvas`).
    pub fn standard() -> Canvas {
        use typography::canvas::{CANVAS_H, CANVAS_W, SAFE_BOTTOM, SAFE_TOP};
        Canvas {
            width: CANVAS_W,
            height: CANVAS_H,
            safe_top: f64::from(SAFE_TOP),
            safe_bottom: f64::from(SAFE_BOTTOM),
        }
    }
}

/// The brand colours a design used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct BrandApplied {
    pub colors: Vec<String>,
    pub applied: bool,
}

/// One designed object and its files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TypographyObject {
    pub index: usize,
    pub name: String,
    pub kind: String,
    pub text: Option<String>,
    pub svg_url: String,
    pub image_url: String,
    pub r#box: DesignBox,
    pub phase: usize,
    pub start: f64,
    pub end: f64,
    pub animation: String,
}

/// Where an object sits on the canvas, pixels.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DesignBox {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(body: Value, expect: Result<(), (Code, &str)>) {
        match (validate(&body), expect) {
            (Ok(_), Ok(())) => {}
            (Err(e), Err((code, param))) => {
                assert_eq!(e.code, code, "{body}: {e}");
                assert_eq!(e.param.as_deref(), Some(param), "{body}");
            }
            (got, want) => panic!("{body}: got {got:?}, want {want:?}"),
        }
    }

    #[test]
    fn validation_follows_the_limits() {
        let ok = json!({"role": "typography", "text": "Hello"});
        check(ok.clone(), Ok(()));
        check(json!({"text": "x"}), Err((Code::MissingField, "role")));
        check(
            json!({"role": "poster", "text": "x"}),
            Err((Code::InvalidRole, "role")),
        );
        check(
            json!({"role": "typography"}),
            Err((Code::MissingField, "text")),
        );
        check(
            json!({"role": "typography", "text": "é".repeat(2001)}),
            Err((Code::TextTooLong, "text")),
        );
        check(
            json!({"role": "typography", "text": "é".repeat(2000)}),
            Ok(()),
        );
        check(
            json!({"role": "typography", "text": "x", "quote": "q".repeat(301)}),
            Err((Code::QuoteTooLong, "quote")),
        );
        for d in [json!(0.5), json!(61), json!("5")] {
            check(
                json!({"role": "typography", "text": "x", "duration": d}),
                Err((Code::InvalidDuration, "duration")),
            );
        }
        check(
            json!({"role": "typography", "text": "x", "duration": 60}),
            Ok(()),
        );
        for w in [json!(101), json!(-1), json!(1.5), json!(true)] {
            check(
                json!({"role": "typography", "text": "x", "wait": w}),
                Err((Code::InvalidWait, "wait")),
            );
        }
        check(
            json!({"role": "typography", "text": "x", "wait": 100}),
            Ok(()),
        );
        check(
            json!({"role": "typography", "text": "x", "wait": 5.0}),
            Ok(()),
        );
        check(
            json!({"role": "typography", "text": "x", "look": "bad look!"}),
            Err((Code::InvalidLook, "look")),
        );
        check(
            json!({"role": "typography", "text": "x", "brand": {"colors": ["red"]}}),
            Err((Code::InvalidBrand, "brand.colors")),
        );
        check(
            json!({"role": "typography", "text": "x", "words": [{"word": "a", "start": 2, "end": 1}]}),
            Err((Code::InvalidWords, "words")),
        );
        check(
            json!({"role": "cta_poster", "text": "x", "cta": {"phone": 5}}),
            Err((Code::InvalidField, "cta.phone")),
        );
        let r = validate(&json!({"role": "opening_poster", "text": "x", "brand": {"colors": ["#112233", "#abcdef"]}, "look": "a_b-1"})).unwrap();
        assert_eq!(r.language, "en", "no letters to tell: the embedded default");
        assert_eq!(r.colors, vec![Rgb(0x11, 0x22, 0x33), Rgb(0xAB, 0xCD, 0xEF)]);
    }

    #[test]
    fn without_a_language_the_text_decides_and_an_explicit_one_wins() {
        let lang = |body: Value| validate(&body).unwrap().language;
        let vi = "Người Việt bắt đầu ngày mới bằng một ly cà phê";
        let en = "Most small businesses lose their best customers in the first month";
        assert_eq!(lang(json!({"role": "typography", "text": vi})), "vi");
        assert_eq!(lang(json!({"role": "typography", "text": en})), "en");
        // The quote is what is set, so it decides.
        assert_eq!(
            lang(json!({"role": "typography", "text": en, "quote": vi})),
            "vi"
        );
        assert_eq!(
            lang(json!({"role": "typography", "text": vi, "language": "EN"})),
            "en"
        );
    }
}
