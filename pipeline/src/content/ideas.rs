//! `POST /v1/collect_ideas`: video ideas for an industry, answered at once (no job, no
//! credit). Each idea is planned in one of the production plan's formats (VE Value Explainer,
//! QA Client Q&A, POV, CS Case Study, MB Myth-Buster), taken in turn so a set covers them all;
//! the embedded planner fills each format's angles with the industry, in English or Vietnamese.
//!
//! Body: `industry` (optional, 2 to 80 characters; `invalid_industry`), `count` (1 to 10,
//! default 5; `invalid_count`), `language` (`English` default, or `Vietnamese`).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use foundation::error::{Code, Error, Result};
use foundation::fields::Body;
use foundation::model::Language;

pub(crate) const COUNT_DEFAULT: i64 = 5;
pub(crate) const COUNT_MAX: i64 = 10;
pub(crate) const INDUSTRY_MAX_CHARS: usize = 80;
/// The industry when neither the request nor the account names one.
pub(crate) const DEFAULT_INDUSTRY: &str = "small business";

/// The body of `POST /v1/collect_ideas` (every field optional; an empty body is fine).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CollectIdeasRequest {
    /// The industry to plan for (default: the account's, else "small business").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(min_length = 2, max_length = 80, pattern = r"\S")]
    pub industry: Option<String>,
    /// How many ideas: 1 to 10 (default 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(minimum = 1, maximum = 10)]
    pub count: Option<i64>,
    /// The language of the ideas (default `English`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<Language>,
}

/// Read by `foundation::fields::body::read`.
impl Body for CollectIdeasRequest {
    type Valid = CollectIdeasRequest;
    const CODES: &'static [(&'static str, Code)] = &[
        ("industry", Code::InvalidIndustry),
        ("count", Code::InvalidCount),
        ("language", Code::InvalidLanguage),
    ];

    fn validate(self) -> Result<Self> {
        if let Some(i) = &self.industry {
            let n = i.trim().chars().count();
            if !(2..=INDUSTRY_MAX_CHARS).contains(&n) || i.chars().count() > INDUSTRY_MAX_CHARS {
                return Err(Error::new(
                    Code::InvalidIndustry,
                    format!("`industry` must have 2 to {INDUSTRY_MAX_CHARS} characters."),
                )
                .param("industry"));
            }
        }
        if self.count.is_some_and(|c| !(1..=COUNT_MAX).contains(&c)) {
            return Err(Error::new(
                Code::InvalidCount,
                format!("`count` must be between 1 and {COUNT_MAX}."),
            )
            .param("count"));
        }
        Ok(CollectIdeasRequest {
            industry: self.industry.map(|s| s.trim().to_string()),
            ..self
        })
    }
}

/// The production plan's formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum IdeaFormat {
    VE,
    QA,
    POV,
    CS,
    MB,
}

impl IdeaFormat {
    const ORDER: [IdeaFormat; 5] = [
        IdeaFormat::VE,
        IdeaFormat::QA,
        IdeaFormat::POV,
        IdeaFormat::CS,
        IdeaFormat::MB,
    ];

    fn name(self) -> &'static str {
        match self {
            IdeaFormat::VE => "Value Explainer",
            IdeaFormat::QA => "Client Q&A",
            IdeaFormat::POV => "POV",
            IdeaFormat::CS => "Case Study",
            IdeaFormat::MB => "Myth-Buster",
        }
    }
}

/// One planned idea.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Idea {
    /// The idea, ready to send as `idea_text` to `create_video` or `content` to
    /// `create_content`.
    pub title: String,
    pub format: IdeaFormat,
    /// The format's full name.
    pub format_name: String,
    /// The opening line of the video.
    pub hook: String,
}

/// The `object` name of [`IdeaList`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum IdeaListTag {
    IdeaList,
}

/// The reply of `POST /v1/collect_ideas`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct IdeaList {
    pub object: IdeaListTag,
    pub industry: String,
    pub language: Language,
    pub count: usize,
    pub data: Vec<Idea>,
}

/// (format, title, hook) templates: `{i}` is the industry.
fn angles(language: Language) -> &'static [(IdeaFormat, &'static str, &'static str)] {
    match language {
        Language::English => &[
            (
                IdeaFormat::VE,
                "What {i} clients are really paying for",
                "Most people misjudge what a good {i} service is worth.",
            ),
            (
                IdeaFormat::QA,
                "The question every new {i} client asks first",
                "Here is the question we hear in almost every first {i} meeting.",
            ),
            (
                IdeaFormat::POV,
                "Why we run our {i} work differently",
                "Most of the {i} industry does this one thing out of habit; we stopped.",
            ),
            (
                IdeaFormat::CS,
                "How one {i} client turned a costly problem around",
                "Six months ago this {i} client was losing money every week.",
            ),
            (
                IdeaFormat::MB,
                "The biggest myth about {i}",
                "You have probably heard this about {i}, and it is simply not true.",
            ),
            (
                IdeaFormat::VE,
                "Three signs you need a {i} expert now",
                "If any of these three things sound familiar, read on.",
            ),
            (
                IdeaFormat::QA,
                "How long does {i} work really take?",
                "The honest answer about {i} timelines is not the one you expect.",
            ),
            (
                IdeaFormat::POV,
                "What the {i} industry gets wrong about customers",
                "Customers do not want more options; they want one clear answer.",
            ),
            (
                IdeaFormat::CS,
                "A small {i} change that saved a client hours every week",
                "One small change in how this client handled {i} saved real time.",
            ),
            (
                IdeaFormat::MB,
                "Cheaper {i} is not always cheaper",
                "The lowest {i} quote often ends up costing the most.",
            ),
        ],
        Language::Vietnamese => &[
            (
                IdeaFormat::VE,
                "Khách hàng {i} thực sự trả tiền cho điều gì",
                "Nhiều người đánh giá sai giá trị của một dịch vụ {i} tốt.",
            ),
            (
                IdeaFormat::QA,
                "Câu hỏi mọi khách hàng {i} mới đều hỏi đầu tiên",
                "Đây là câu hỏi chúng tôi nghe trong hầu hết buổi gặp đầu tiên về {i}.",
            ),
            (
                IdeaFormat::POV,
                "Vì sao chúng tôi làm {i} theo cách khác",
                "Phần lớn ngành {i} làm điều này theo thói quen; chúng tôi đã dừng lại.",
            ),
            (
                IdeaFormat::CS,
                "Một khách hàng {i} đã xoay chuyển vấn đề tốn kém như thế nào",
                "Sáu tháng trước, khách hàng {i} này mất tiền mỗi tuần.",
            ),
            (
                IdeaFormat::MB,
                "Lầm tưởng lớn nhất về {i}",
                "Có lẽ bạn đã nghe điều này về {i}, và nó hoàn toàn không đúng.",
            ),
            (
                IdeaFormat::VE,
                "Ba dấu hiệu bạn cần chuyên gia {i} ngay",
                "Nếu một trong ba điều này nghe quen thuộc, hãy xem tiếp.",
            ),
            (
                IdeaFormat::QA,
                "Làm {i} thực sự mất bao lâu?",
                "Câu trả lời trung thực về thời gian làm {i} không như bạn nghĩ.",
            ),
            (
                IdeaFormat::POV,
                "Điều ngành {i} hiểu sai về khách hàng",
                "Khách hàng không cần thêm lựa chọn; họ cần một câu trả lời rõ ràng.",
            ),
            (
                IdeaFormat::CS,
                "Một thay đổi nhỏ về {i} giúp khách hàng tiết kiệm hàng giờ mỗi tuần",
                "Một thay đổi nhỏ trong cách khách hàng này làm {i} đã tiết kiệm thời gian thật.",
            ),
            (
                IdeaFormat::MB,
                "{i} rẻ hơn chưa chắc đã rẻ hơn",
                "Báo giá {i} thấp nhất thường lại tốn kém nhất.",
            ),
        ],
    }
}

/// `count` ideas for `industry`: the formats in turn (VE, QA, POV, CS, MB, then again).
pub fn collect(industry: &str, count: usize, language: Language) -> IdeaList {
    let all = angles(language);
    let mut data = Vec::new();
    for round in 0..2 {
        for f in IdeaFormat::ORDER {
            if let Some((format, title, hook)) = all.iter().filter(|(g, _, _)| *g == f).nth(round) {
                data.push(Idea {
                    title: title.replace("{i}", industry),
                    format: *format,
                    format_name: format.name().into(),
                    hook: hook.replace("{i}", industry),
                });
            }
        }
    }
    data.truncate(count);
    IdeaList {
        object: IdeaListTag::IdeaList,
        industry: industry.to_string(),
        language,
        count: data.len(),
        data,
    }
}

/// Answers a request.
/// The answer to `req` for an account whose profile names `account_industry` (if any).
pub fn answer(req: &CollectIdeasRequest, account_industry: Option<&str>) -> IdeaList {
    let industry = req
        .industry
        .as_deref()
        .or(account_industry.filter(|i| !i.trim().is_empty()))
        .unwrap_or(DEFAULT_INDUSTRY);
    let count = req.count.unwrap_or(COUNT_DEFAULT).clamp(1, COUNT_MAX) as usize;
    collect(industry, count, req.language.unwrap_or(Language::English))
}

#[cfg(test)]
mod tests {
    use super::*;
    use foundation::fields::body;
    use serde_json::json;

    #[test]
    fn ideas_cover_the_formats_in_turn() {
        let list = collect("dental care", 7, Language::English);
        let formats: Vec<IdeaFormat> = list.data.iter().map(|i| i.format).collect();
        assert_eq!(
            formats,
            [
                IdeaFormat::VE,
                IdeaFormat::QA,
                IdeaFormat::POV,
                IdeaFormat::CS,
                IdeaFormat::MB,
                IdeaFormat::VE,
                IdeaFormat::QA
            ]
        );
        assert!(list.data.iter().all(|i| i.title.contains("dental care")));
        let vi = collect("nha khoa", 10, Language::Vietnamese);
        assert_eq!(vi.count, 10);
        assert!(vi.data[0].title.contains("nha khoa"));
    }

    #[test]
    fn each_field_answers_with_its_code() {
        for (body, code, param) in [
            (json!({"count": 0}), Code::InvalidCount, "count"),
            (json!({"count": 11}), Code::InvalidCount, "count"),
            (json!({"count": "3"}), Code::InvalidCount, "count"),
            (json!({"industry": 5}), Code::InvalidIndustry, "industry"),
            (json!({"industry": "x"}), Code::InvalidIndustry, "industry"),
            (
                json!({"industry": "y".repeat(81)}),
                Code::InvalidIndustry,
                "industry",
            ),
            (
                json!({"language": "French"}),
                Code::InvalidLanguage,
                "language",
            ),
        ] {
            let e = body::read::<CollectIdeasRequest>(&body).unwrap_err();
            assert_eq!((e.code, e.param.as_deref()), (code, Some(param)), "{body}");
        }
        assert_eq!(
            answer(
                &body::read::<CollectIdeasRequest>(&json!({})).unwrap(),
                None
            )
            .count,
            5
        );
    }

    #[test]
    fn the_industry_is_the_requests_then_the_accounts_then_the_default() {
        let industry = |body: serde_json::Value, account: Option<&str>| {
            answer(&body::read::<CollectIdeasRequest>(&body).unwrap(), account).industry
        };
        assert_eq!(
            industry(json!({"industry": "bakeries"}), Some("dentists")),
            "bakeries"
        );
        assert_eq!(industry(json!({}), Some("dentists")), "dentists");
        assert_eq!(industry(json!({}), Some("  ")), DEFAULT_INDUSTRY);
        assert_eq!(industry(json!({}), None), DEFAULT_INDUSTRY);
    }
}
