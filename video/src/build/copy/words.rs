//! Words of overlay copy: tokens with their surface form, and the word lists the analysis
//! delimits phrases with (English and Vietnamese).

/// Words a piece of copy may never end on: articles, prepositions, conjunctions, auxiliaries,
/// pronouns and determiners, English and Vietnamese (lowercase).
pub(crate) const FUNCTION_WORDS: &[&str] = &[
    // English
    "a", "an", "the", "and", "or", "but", "nor", "so", "yet", "if", "of", "to", "in", "on", "at",
    "for", "with", "by", "from", "as", "into", "onto", "than", "that", "this", "these", "those",
    "which", "who", "whom", "whose", "what", "when", "where", "while", "because", "about", "over",
    "under", "after", "before", "between", "through", "is", "are", "was", "were", "be", "been",
    "being", "am", "do", "does", "did", "has", "have", "had", "will", "would", "can", "could",
    "should", "shall", "may", "might", "must", "it", "its", "we", "you", "they", "he", "she", "i",
    "me", "us", "them", "him", "her", "our", "your", "their", "my", "his", "not", "no", "there",
    "then", "very", "also", "too", "per", "via", "every", "each", "some", "any", "all", "more",
    "most", "such", "like", "how", "why", "own", "whether", "until", "without", "within", "across",
    "against", "toward", "towards", "upon", "among", "both", "either", "neither", "just", "only",
    "even", "much", "many", "few", "other", "another", // Vietnamese
    "và", "của", "là", "thì", "mà", "những", "các", "một", "cho", "với", "để", "từ", "trong",
    "trên", "dưới", "khi", "nếu", "nhưng", "hoặc", "hay", "vì", "nên", "rằng", "này", "đó", "kia",
    "ấy", "được", "bị", "đã", "sẽ", "đang", "rất", "cũng", "như", "về", "tại", "ở", "sự", "việc",
    "cái", "nhiều", "mỗi", "mọi", "bởi", "do", "tuy", "dù", "hơn", "nhất", "vào", "ra", "lên",
    "xuống", "chỉ", "vẫn", "còn", "đến", "tới", "qua", "sau", "trước", "bằng", "cùng", "giữa",
    "nhờ", "tận", "suốt",
];

/// Further words that end or open a candidate phrase without being function words: adverbs of
/// degree and frequency, empty verbs and discourse markers. A phrase is cut at them, and they
/// are trimmed from the ends of copy, but copy ending on one breaks no rule.
const WEAK_WORDS: &[&str] = &[
    "always",
    "never",
    "often",
    "usually",
    "already",
    "almost",
    "really",
    "still",
    "now",
    "here",
    "ever",
    "rarely",
    "actually",
    "simply",
    "probably",
    "maybe",
    "perhaps",
    "instead",
    "first",
    "finally",
    "then",
    "well",
    "get",
    "gets",
    "got",
    "make",
    "makes",
    "made",
    "way",
    "ways",
    "lot",
    "lots",
    "someone",
    "something",
    "nobody",
    "everyone",
    "everything",
    "anything",
    "nothing",
    "said",
    "say",
    "says",
    "let",
    "lets",
    "want",
    "wants",
    "need",
    "needs",
    "know",
    "think",
    "please",
    "yes",
    "okay",
    "today",
    "tonight",
    "whatever",
    "whenever",
    "wherever",
    "however",
    "therefore",
    "có",
    "không",
    "thấy",
    "bạn",
    "mình",
    "chúng",
    "ta",
    "tôi",
    "họ",
    "ai",
    "gì",
    "nào",
    "đâu",
    "vậy",
    "thế",
    "hãy",
    "đừng",
    "luôn",
    "thường",
    "đều",
    "ngay",
    "nhé",
    "nha",
    "thật",
    "rồi",
    "chưa",
    "phải",
    "cần",
    "muốn",
    "biết",
    "nghĩ",
    "điều",
    "thứ",
    "cách",
    "lại",
];

/// Words copy is not left ending on, though they may stand inside a phrase: spelled-out
/// numbers and adverbs of degree ("cost five", "costs far").
const WEAK_ENDS: &[&str] = &[
    "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve",
    "twenty", "thirty", "fifty", "hundred", "far", "next", "using", "hai", "ba", "bốn", "năm",
    "sáu", "mười", "theo", "kèm", "ít",
];

/// Whether `w` (any case) is a function word.
pub(crate) fn is_function_word(w: &str) -> bool {
    let l = norm(w);
    FUNCTION_WORDS.contains(&l.as_str())
}

/// Whether `w` (any case) delimits candidate phrases: a function word or a weak word.
pub(crate) fn is_stop(w: &str) -> bool {
    let l = norm(w);
    FUNCTION_WORDS.contains(&l.as_str()) || WEAK_WORDS.contains(&l.as_str())
}

/// A word's comparable form: lowercase, without surrounding punctuation (`%`, `$`, `€`, `£`
/// kept, they are part of a number).
pub fn norm(w: &str) -> String {
    clean(w).to_lowercase()
}

/// A word without surrounding punctuation (`%`, `$`, `€`, `£` kept).
pub fn clean(w: &str) -> &str {
    w.trim_matches(|c: char| !c.is_alphanumeric() && !"%$€£".contains(c))
}

/// Whether a word closes a clause (it carries `,` `;` `:` `.` `!` `?` `—` at its end).
pub(crate) fn ends_clause(w: &str) -> bool {
    w.trim_end_matches(['"', '”', '’', '\'', ')', '»'])
        .ends_with([',', ';', ':', '.', '!', '?', '—', '…'])
}

/// Whether a word states a number (a digit in it, at most two letters: `3.5%`, `$1,200`,
/// `10x`, `2024`).
pub fn is_number(w: &str) -> bool {
    let c = clean(w);
    c.chars().any(|ch| ch.is_ascii_digit())
        && c.chars().filter(|ch| ch.is_alphabetic()).count() <= 2
}

/// Whether `text` is written in Vietnamese (it has a letter only Vietnamese uses).
pub(crate) fn is_vietnamese(text: &str) -> bool {
    text.chars()
        .any(|c| "ăâđêôơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹĐ".contains(c))
}

/// `text` as comparable words (see [`norm`]), empty ones dropped.
pub fn normalized(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(norm)
        .filter(|w| !w.is_empty())
        .collect()
}

/// Drops weak and function words from both ends of `words` (surface forms).
pub(crate) fn trim_ends(words: &[String]) -> Vec<String> {
    let mut a = 0;
    let b = words.len();
    while a < b && (is_stop(&words[a]) && !is_number(&words[a])) {
        a += 1;
    }
    trim_end(&words[a..b])
}

/// Drops weak and function words (and [`WEAK_ENDS`]) from the end of `words`.
pub fn trim_end(words: &[String]) -> Vec<String> {
    let weak_end = |w: &str| is_stop(w) || WEAK_ENDS.contains(&norm(w).as_str());
    let mut b = words.len();
    while b > 0 && weak_end(&words[b - 1]) && !is_number(&words[b - 1]) {
        b -= 1;
    }
    words[..b].to_vec()
}

/// Drops function words (only) from the end of `words`.
pub(crate) fn trim_function_end(words: &[String]) -> Vec<String> {
    let mut b = words.len();
    while b > 0 && is_function_word(&words[b - 1]) {
        b -= 1;
    }
    words[..b].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn function_words_of_both_languages() {
        for x in [
            "The", "that", "AND", "of", "to", "a", "và", "của", "là", "thì", "mà", "để",
        ] {
            assert!(is_function_word(x), "{x}");
        }
        for x in ["videos", "kinh", "40%", "never"] {
            assert!(!is_function_word(x), "{x}");
        }
        assert!(is_stop("never") && is_stop("hãy"));
    }

    #[test]
    fn ends_are_trimmed() {
        assert_eq!(trim_ends(&w("the small teams that")), w("small teams"));
        assert_eq!(trim_ends(&w("the of")), Vec::<String>::new());
        assert_eq!(
            trim_function_end(&w("do these things and")),
            w("do these things")
        );
        assert_eq!(clean("“$1,200.”"), "$1,200");
        assert!(ends_clause("step,") && ends_clause("done.”") && !ends_clause("step"));
        assert!(is_number("3.5%") && is_number("10x") && !is_number("COVID19"));
    }
}
