//! The wire of `POST /v1/typography` and `GET /v1/typography/{id}`: the request body, one type
//! ([`TypographyBody`]) that deserialises, derives its OpenAPI schema and validates into a
//! [`TypographyRequest`] with the spec's code and `param` per field (`foundation::fields::Body`),
//! and the schema of the result.

use serde::{Deserialize, Serialize};
use typography::design::{self, Cta, Rgb, Role, TimedWord};
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

use foundation::error::{Code, Error};
use foundation::fields::Body;

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

/// `?wait=` of `GET /v1/typography/{id}`: whole seconds, 0 to 100 (absent: 0).
pub fn parse_wait(query: Option<&str>) -> Result<u64, Error> {
    match query.map(|q| q.trim().parse::<u64>()) {
        None => Ok(0),
        Some(Ok(w)) if w <= MAX_WAIT => Ok(w),
        Some(_) => Err(wait_refused()),
    }
}

impl Body for TypographyBody {
    type Valid = TypographyRequest;
    const CODES: &'static [(&'static str, Code)] = &[
        ("role", Code::InvalidRole),
        ("words", Code::InvalidWords),
        ("duration", Code::InvalidDuration),
        ("brand", Code::InvalidBrand),
        ("look", Code::InvalidLook),
        ("wait", Code::InvalidWait),
    ];
    const DEEP_PARAMS: &'static [&'static str] = &["brand", "cta"];

    /// The spec's limits the schema carries no code for, and the defaults.
    fn validate(self) -> Result<TypographyRequest, Error> {
        let n = self.text.chars().count();
        if n > MAX_TEXT {
            return Err(invalid(
                Code::TextTooLong,
                "text",
                format!("`text` has {n} characters; the limit is {MAX_TEXT}."),
            ));
        }
        if let Some(n) = self.quote.as_ref().map(|q| q.chars().count())
            && n > MAX_QUOTE
        {
            return Err(invalid(
                Code::QuoteTooLong,
                "quote",
                format!("`quote` has {n} characters; the limit is {MAX_QUOTE}."),
            ));
        }
        if self
            .duration
            .is_some_and(|d| !(1.0..=design::MAX_DURATION).contains(&d))
        {
            return Err(invalid(
                Code::InvalidDuration,
                "duration",
                "`duration` must be a number of seconds from 1 to 60.",
            ));
        }
        let language = match self.language.as_deref() {
            Some(l) => language(l)?,
            None => detected_code(self.quote.as_deref().unwrap_or(&self.text)),
        };
        Ok(TypographyRequest {
            role: self.role.0,
            language,
            words: words(self.words.unwrap_or_default())?,
            duration: self.duration,
            show_narrator: self.show_narrator.unwrap_or(false),
            exact: self.exact.unwrap_or(false),
            colors: colors(self.brand.and_then(|b| b.colors).unwrap_or_default())?,
            cta: self.cta.map(CtaLines::lines).transpose()?,
            look: self.look.map(look).transpose()?,
            wait: wait(self.wait)?,
            text: self.text,
            quote: self.quote,
        })
    }
}

/// `language`: a code such as `vi` or `en`, lowercased.
fn language(l: &str) -> Result<String, Error> {
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
    Ok(l.to_ascii_lowercase())
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
fn words(words: Vec<TimedWord>) -> Result<Vec<TimedWord>, Error> {
    if words.len() > MAX_WORDS {
        return Err(invalid(
            Code::InvalidWords,
            "words",
            format!("`words` may hold at most {MAX_WORDS} items."),
        ));
    }
    for (i, w) in words.iter().enumerate() {
        let bad = |why: &str| invalid(Code::InvalidWords, "words", format!("`words[{i}]` {why}."));
        if !(w.start >= 0.0 && w.end >= w.start) {
            return Err(bad("needs 0 ≤ start ≤ end (seconds)"));
        }
        if w.end > design::MAX_DURATION {
            return Err(bad("ends after 60 s, the longest design"));
        }
    }
    Ok(words)
}

/// `brand.colors`: at most 8 `#RRGGBB`, main colour first.
fn colors(colors: Vec<HexColor>) -> Result<Vec<Rgb>, Error> {
    if colors.len() > MAX_COLORS {
        return Err(invalid(
            Code::InvalidBrand,
            "brand.colors",
            format!(
                "`brand.colors` must be an array of at most {MAX_COLORS} `#RRGGBB` colours, main colour first."
            ),
        ));
    }
    colors
        .iter()
        .map(|HexColor(c)| {
            Rgb::parse(c.trim()).ok_or_else(|| {
                invalid(
                    Code::InvalidBrand,
                    "brand.colors",
                    "`brand.colors` items must be `#RRGGBB` strings.",
                )
            })
        })
        .collect()
}

/// `look`: 1 to 64 letters, digits, `-` or `_`.
fn look(l: String) -> Result<String, Error> {
    let ok = (1..=MAX_LOOK).contains(&l.len())
        && l.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !ok {
        return Err(invalid(
            Code::InvalidLook,
            "look",
            "`look` must be 1 to 64 letters, digits, `-` or `_`.",
        ));
    }
    Ok(l)
}

/// `wait` in the body: whole seconds, 0 to 100.
fn wait(w: Option<u64>) -> Result<u64, Error> {
    match w {
        Some(w) if w > MAX_WAIT => Err(wait_refused()),
        w => Ok(w.unwrap_or(0)),
    }
}

fn wait_refused() -> Error {
    invalid(
        Code::InvalidWait,
        "wait",
        format!("`wait` must be an integer number of seconds from 0 to {MAX_WAIT}."),
    )
}

/// `role` on the wire: one of [`Role::NAMES`].
pub(crate) struct RoleName(Role);

impl<'de> Deserialize<'de> for RoleName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<RoleName, D::Error> {
        let name = String::deserialize(d)?;
        Role::parse(name.trim()).map(RoleName).ok_or_else(|| {
            serde::de::Error::custom(format!("`role` must be one of {:?}", Role::NAMES))
        })
    }
}

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
#[derive(Deserialize, ToSchema)]
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
#[derive(Deserialize, ToSchema)]
pub struct Brand {
    #[schema(max_items = 8)]
    colors: Option<Vec<HexColor>>,
}

/// A colour `#RRGGBB`, as sent (read into an [`Rgb`] by [`colors`]).
#[derive(Deserialize)]
pub(crate) struct HexColor(String);

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
#[derive(Deserialize, ToSchema)]
pub(crate) struct CtaLines {
    #[schema(max_length = 200)]
    company_name: Option<String>,
    #[schema(max_length = 200)]
    phone: Option<String>,
    #[schema(max_length = 200)]
    email: Option<String>,
}

impl CtaLines {
    /// The lines, trimmed, each at most 200 characters (absent: empty).
    fn lines(self) -> Result<Cta, Error> {
        let line = |k: &str, v: Option<String>| match v {
            Some(s) if s.chars().count() > MAX_CTA => Err(invalid(
                Code::InvalidField,
                &format!("cta.{k}"),
                format!("`cta.{k}` must be a string of at most {MAX_CTA} characters."),
            )),
            v => Ok(v.map(|s| s.trim().to_string()).unwrap_or_default()),
        };
        Ok(Cta {
            company_name: line("company_name", self.company_name)?,
            phone: line("phone", self.phone)?,
            email: line("email", self.email)?,
        })
    }
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
    use serde_json::{Value, json};

    fn validate(body: &Value) -> Result<TypographyRequest, Error> {
        foundation::fields::body::read::<TypographyBody>(body)
    }

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
        for (brand, param) in [
            (json!(5), "brand"),
            (json!({"colors": "#112233"}), "brand.colors"),
            (json!({"colors": [5]}), "brand.colors"),
            (json!({"colors": vec!["#112233"; 9]}), "brand.colors"),
        ] {
            check(
                json!({"role": "typography", "text": "x", "brand": brand}),
                Err((Code::InvalidBrand, param)),
            );
        }
        check(
            json!({"role": "cta_poster", "text": "x", "cta": {"email": "e".repeat(201)}}),
            Err((Code::InvalidField, "cta.email")),
        );
        for words in [json!("x"), json!([{"word": "a", "start": 0}]), json!([5])] {
            check(
                json!({"role": "typography", "text": "x", "words": words}),
                Err((Code::InvalidWords, "words")),
            );
        }
        check(json!({"role": " cta_poster ", "text": "x"}), Ok(()));
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
