//! Imperatives for calls to action: the clause of a scene that tells the viewer to do
//! something ("Do these three things consistently", "Hãy bắt đầu ngay hôm nay"). A clause is
//! an imperative when, after an opening connector ("then", "so", "finally", "và"), its first
//! word is a verb of action from [`VERBS`], "don't"/"never" before one, or Vietnamese "hãy",
//! "đừng" or a verb of action.

use super::words::{clean, ends_clause, norm};

/// Verbs that open an imperative (English and Vietnamese first syllables, lowercase).
const VERBS: &[&str] = &[
    "follow",
    "subscribe",
    "start",
    "try",
    "book",
    "visit",
    "share",
    "save",
    "comment",
    "join",
    "download",
    "sign",
    "call",
    "click",
    "tap",
    "check",
    "write",
    "post",
    "do",
    "keep",
    "make",
    "take",
    "get",
    "read",
    "watch",
    "learn",
    "plan",
    "pick",
    "choose",
    "open",
    "end",
    "show",
    "say",
    "stop",
    "use",
    "add",
    "ask",
    "build",
    "begin",
    "cook",
    "drink",
    "eat",
    "walk",
    "sleep",
    "set",
    "put",
    "test",
    "track",
    "grab",
    "go",
    "come",
    "turn",
    "give",
    "tell",
    "send",
    "leave",
    "buy",
    "order",
    "pack",
    "bring",
    "remember",
    "list",
    "review",
    "compare",
    "cut",
    "swap",
    "skip",
    "protect",
    "invest",
    "spend",
    "pay",
    "budget",
    "move",
    "stretch",
    "breathe",
    "practice",
    "practise",
    "study",
    "explore",
    "find",
    "focus",
    "hãy",
    "đừng",
    "theo",
    "đăng",
    "thử",
    "chia",
    "lưu",
    "bình",
    "ghé",
    "nhấn",
    "tải",
    "bắt",
    "bấm",
    "xem",
    "đọc",
    "ghi",
    "viết",
    "tham",
    "mua",
    "đặt",
    "nấu",
    "uống",
    "ăn",
    "đi",
    "fill",
    "finish",
    "rewrite",
    "update",
    "schedule",
    "lay",
    "highlight",
    "cancel",
    "rotate",
    "print",
    "install",
    "plug",
    "enable",
    "rinse",
    "boil",
    "simmer",
    "season",
    "melt",
    "whisk",
    "claim",
    "reply",
    "create",
    "write",
    "name",
    "wear",
    "drink",
    "visit",
    "walk",
    "look",
    "ngủ",
    "tập",
    "dành",
    "giữ",
    "chọn",
    "lập",
    "bỏ",
    "thêm",
    "học",
    "gửi",
    "nhắn",
    "liên",
    "rót",
    "soạn",
    "kiểm",
    "cài",
    "mở",
    "biến",
    "tìm",
    "liệt",
    "luộc",
    "nấu",
    "lên",
    "rủ",
    "tắt",
    "bật",
    "chuyển",
    "sạc",
    "uống",
    "ghé",
    "thuê",
    "hỏi",
    "dạo",
];
/// Connectors that may open a clause before the imperative.
const OPENERS: &[&str] = &[
    "then", "so", "now", "finally", "and", "just", "please", "today", "next", "và", "vậy", "thì",
    "giờ", "bây", "cuối", "cùng", "nào", "ngay", "tối", "sáng", "nay", "hôm",
];

/// The clauses of `text` (split at clause punctuation and at "and"/"và" between clauses),
/// as words written (punctuation trimmed).
pub(crate) fn clauses(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut cur: Vec<String> = Vec::new();
    for raw in text.split_whitespace() {
        let l = norm(raw);
        if (l == "and" || l == "và") && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
            continue;
        }
        let w = clean(raw);
        if !w.is_empty() {
            cur.push(w.to_string());
        }
        if ends_clause(raw) && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The imperative of a clause: its words from the verb on, or `None`.
fn imperative(clause: &[String]) -> Option<Vec<String>> {
    let mut i = 0;
    while i < clause.len() && OPENERS.contains(&norm(&clause[i]).as_str()) {
        i += 1;
    }
    let first = norm(clause.get(i)?);
    let negated = first == "don't" || first == "never" || first == "dont";
    let verb = if negated {
        norm(clause.get(i + 1)?)
    } else {
        first
    };
    VERBS.contains(&verb.as_str()).then(|| clause[i..].to_vec())
}

/// The last imperative clause of `text` (a call to action closes a scene), or `None`.
pub fn find(text: &str) -> Option<Vec<String>> {
    clauses(text).iter().rev().find_map(|c| imperative(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Option<String> {
        find(text).map(|w| w.join(" "))
    }

    #[test]
    fn imperatives_of_both_languages() {
        assert_eq!(
            found("Do these three things consistently and your videos will start working for you.")
                .as_deref(),
            Some("Do these three things consistently")
        );
        assert_eq!(
            found("Finally, end with one clear next step.").as_deref(),
            Some("end with one clear next step")
        );
        assert_eq!(
            found("Hãy theo dõi kênh để nhận mẹo mỗi tuần.").as_deref(),
            Some("Hãy theo dõi kênh để nhận mẹo mỗi tuần")
        );
        assert_eq!(
            found("Don't skip breakfast.").as_deref(),
            Some("Don't skip breakfast")
        );
        assert_eq!(found("Your videos will start working."), None);
    }
}
