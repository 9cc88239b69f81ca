//! Numbers with their unit: "40%", "$1,200", "3 in 5", "2 hours", "8 triệu", "70 phần trăm"
//! (written "70%"). A number phrase is the number word, a ratio's second half ("in 5",
//! "out of 10", "trên 5"), a magnitude ("million", "triệu") and a unit ("hours", "giờ").

use super::words::{clean, ends_clause, is_number, norm};

/// Units a number may carry (lowercase; Vietnamese units may be two syllables).
const UNITS: &[&str] = &[
    "percent",
    "percentage",
    "points",
    "x",
    "times",
    "seconds",
    "second",
    "minutes",
    "minute",
    "hours",
    "hour",
    "days",
    "day",
    "weeks",
    "week",
    "months",
    "month",
    "years",
    "year",
    "dollars",
    "dollar",
    "euros",
    "pounds",
    "usd",
    "vnd",
    "people",
    "users",
    "customers",
    "viewers",
    "followers",
    "views",
    "steps",
    "calories",
    "kg",
    "km",
    "miles",
    "grams",
    "cups",
    "degrees",
    "servings",
    "pages",
    "words",
    "clicks",
    "sales",
    "orders",
    "posts",
    "videos",
    "phần trăm",
    "lần",
    "giây",
    "phút",
    "giờ",
    "tiếng",
    "ngày",
    "tuần",
    "tháng",
    "năm",
    "đồng",
    "người",
    "khách",
    "bước",
    "calo",
    "cân",
    "lít",
    "ly",
    "chén",
    "trang",
    "đơn",
];
/// Magnitudes between a number and its unit.
const MAGNITUDES: &[&str] = &[
    "hundred", "thousand", "million", "billion", "trillion", "trăm", "nghìn", "ngàn", "triệu",
    "tỷ", "tỉ",
];
/// The words of a ratio ("3 in 5", "1 out of 4", "7 trên 10", "2 trong 3").
const RATIO_WORDS: &[&[&str]] = &[&["in"], &["of"], &["out", "of"], &["trên"], &["trong"]];
/// The words of a range ("7 to 9", "20 đến 80", "20% and 80%").
const RANGE_WORDS: &[&str] = &["to", "and", "đến", "tới", "-", "–"];

/// A number phrase found in a text: its words (as written) and its word range.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NumberPhrase {
    pub words: Vec<String>,
    pub start: usize,
    pub end: usize,
}

impl NumberPhrase {
    /// How it is set on screen: "percent"/"phần trăm" become `%`.
    pub fn display(&self) -> String {
        let mut out: Vec<String> = Vec::new();
        let mut i = 0;
        while i < self.words.len() {
            let l = norm(&self.words[i]);
            let next = self.words.get(i + 1).map(|w| norm(w));
            let percent = match (l.as_str(), next.as_deref()) {
                ("percent", _) => 1,
                ("phần", Some("trăm")) => 2,
                _ => 0,
            };
            if percent > 0
                && let Some(prev) = out.last_mut()
            {
                prev.push('%');
                i += percent;
                continue;
            }
            out.push(self.words[i].clone());
            i += 1;
        }
        out.join(" ")
    }
}

/// The first number phrase of `text`.
pub fn find(text: &str) -> Option<NumberPhrase> {
    let raw: Vec<&str> = text.split_whitespace().collect();
    let at = raw.iter().position(|w| is_number(w))?;
    Some(read_at(&raw, at))
}

/// The number phrase that starts at word `at` of `raw` (which states a number).
pub(crate) fn read_at(raw: &[&str], at: usize) -> NumberPhrase {
    let words: Vec<String> = raw.iter().map(|w| norm(w)).collect();
    let mut end = at + 1;
    if !ends_clause(raw[at]) {
        end = extend(raw, &words, end);
    }
    NumberPhrase {
        words: raw[at..end].iter().map(|w| clean(w).to_string()).collect(),
        start: at,
        end,
    }
}

/// Whether `a` and `b` read as a ratio "a in b": plain counts, `a` ≤ `b` ≤ 100.
fn is_ratio(a: &str, b: &str) -> bool {
    let count = |w: &str| clean(w).parse::<u32>().ok();
    matches!((count(a), count(b)), (Some(a), Some(b)) if a <= b && b <= 100)
}

/// Extends a number phrase ending before `end` by a ratio, a magnitude and a unit.
fn extend(raw: &[&str], words: &[String], mut end: usize) -> usize {
    let open = |e: usize| e > 0 && !ends_clause(raw[e - 1]);
    for ratio in RATIO_WORDS {
        let n = ratio.len();
        if end + n < words.len()
            && ratio.iter().zip(&words[end..end + n]).all(|(a, b)| *a == b)
            && is_ratio(raw[end - 1], raw[end + n])
            && open(end + n)
        {
            end += n + 1;
            break;
        }
    }
    if end + 1 < words.len()
        && open(end + 1)
        && RANGE_WORDS.contains(&words[end].as_str())
        && is_number(raw[end + 1])
    {
        end += 2;
    }
    if end < words.len() && open(end) && MAGNITUDES.contains(&words[end].as_str()) {
        end += 1;
    }
    if end + 1 < words.len() && open(end + 1) {
        let two = format!("{} {}", words[end], words[end + 1]);
        if UNITS.contains(&two.as_str()) {
            return end + 2;
        }
    }
    if end < words.len() && open(end) && UNITS.contains(&words[end].as_str()) {
        end += 1;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(text: &str) -> String {
        find(text).unwrap().display()
    }

    #[test]
    fn numbers_with_their_units() {
        assert_eq!(shown("Revenue grew 40% in 2024, a record."), "40%");
        assert_eq!(shown("Nearly 3 in 5 shoppers watch reviews."), "3 in 5");
        assert_eq!(shown("We saved $1,200 per month."), "$1,200");
        assert_eq!(shown("It takes 2 hours a week."), "2 hours");
        assert_eq!(shown("Khoảng 70 phần trăm khách hàng xem video."), "70%");
        assert_eq!(shown("Hà Nội có hơn 8 triệu dân."), "8 triệu");
        assert_eq!(
            shown("Only 1 out of 10 posts go viral."),
            "1 out of 10 posts"
        );
        assert_eq!(shown("Growth was 40 percent this year."), "40%");
        assert_eq!(shown("Chỉ mất 15 phút mỗi ngày."), "15 phút");
        assert_eq!(shown("Adults need 7 to 9 hours of sleep."), "7 to 9 hours");
        assert_eq!(shown("mức sạc từ 20 đến 80 phần trăm."), "20 đến 80%");
        assert_eq!(find("no numbers here"), None);
    }

    #[test]
    fn a_clause_end_stops_the_phrase() {
        assert_eq!(shown("They sold 300, hours later more."), "300");
        let p = find("grew 10x faster").unwrap();
        assert_eq!((p.start, p.end), (1, 2));
    }
}
