//! Script → scenes: sentence splitting, scene grouping and inline media (spec `create_video`
//! rule 8).
//!
//! This is the pure first step of scene building for `source=text` (DESIGN.md §2, `scenes`).
//! [`split_script`] turns the user's `script_text` into [`SceneDraft`]s of about 8–25 spoken
//! words, cut at sentence boundaries, and pulls inline media out of the narration:
//!
//! - a markdown image `![alt](url)`, anywhere, or
//! - a raw direct image/video URL (`.jpg .jpeg .png .webp .gif` / `.mp4 .mov .webm .m4v`).
//!
//! Media on its own line becomes the visual of the adjacent scene (the sentence right after it,
//! or right before when it is last); when it has alt text, the scene holding the sentence that
//! best matches the alt text wins. Media inside a sentence is removed from speech and attached
//! to that sentence's scene. Other URLs are ordinary spoken words.
//!
//! The invariant the rest of the pipeline relies on: the words of all scene texts, concatenated,
//! are exactly the script's spoken words (its whitespace-separated words minus media tokens),
//! verbatim and in order. Nothing is reworded, dropped or duplicated.

use foundation::document::MediaKind;
use foundation::model::{Source, VideoLength};

/// Media the user placed in the script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineMedia {
    /// The URL as written.
    pub url: String,
    /// The markdown alt text, when given and not blank.
    pub alt: Option<String>,
    /// Image or video, from the URL's extension: a video for `.mp4`, `.mov`, `.webm`, `.m4v`,
    /// else an image (also any markdown image whose extension is not a video's).
    pub kind: MediaKind,
}

/// One scene as cut from the script, before voice and visuals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SceneDraft {
    /// The spoken words of the scene, joined by single spaces.
    pub text: String,
    /// The user's media for this scene, if the script placed one here.
    pub media: Option<InlineMedia>,
}

/// Number of words in `s` as the spec defines it: split on whitespace.
pub fn word_count(s: &str) -> usize {
    s.split_whitespace().count()
}

/// The most speech one video may hold (spec: media over 5 minutes is refused; a script is held
/// to the same).
pub(crate) const MAX_SPEECH_SECS: f64 = 300.0;
/// The most narration of an idea or blog post at `video_length` `short` (the spec's "about
/// 90 s"), above what the writer aims for.
pub(crate) const SHORT_NARRATION_MAX_SECS: f64 = 120.0;
/// The same at `video_length` `normal` (the spec's "about 3 min cap").
pub(crate) const NORMAL_NARRATION_MAX_SECS: f64 = 210.0;

/// The most narration a video of `source` may hold, measured on what the voice really
/// synthesised: scene assembly stops the voice once the running total passes it, and the job
/// fails with `narration_too_long`. A script or a recording: [`MAX_SPEECH_SECS`]; an idea or
/// blog post: by its `video_length`.
pub(crate) fn max_narration_secs(source: Source, length: VideoLength) -> f64 {
    match (source, length) {
        (Source::Idea | Source::Blog, VideoLength::Short) => SHORT_NARRATION_MAX_SECS,
        (Source::Idea | Source::Blog, VideoLength::Normal) => NORMAL_NARRATION_MAX_SECS,
        _ => MAX_SPEECH_SECS,
    }
}
/// Characters a voice speaks per second, on the slow side: espeak-ng's default 175 words a
/// minute is about 16.6, the neural English voice at its narration pace about 17.5, so the
/// estimate errs long.
const SPEECH_CHARS_PER_SEC: f64 = 16.6;
/// The longest spoken word accepted (the longest English dictionary word has 45 letters).
pub(crate) const MAX_WORD_CHARS: usize = 64;

/// Whether `token` is an inline media URL (not spoken).
fn is_url(token: &str) -> bool {
    let lower = token.to_ascii_lowercase();
    lower.contains("http://") || lower.contains("https://")
}

/// The words the scenes of `text` will hold, in order: what [`split_script`] leaves once the
/// inline media is out. Media glued inside a whitespace-separated token splits it
/// (`one![a](https://x/a.png)two` holds `one` and `two`), so these are what the limits below
/// must count, not the token (which holds a URL).
pub fn spoken_words(text: &str) -> Vec<String> {
    parse(text).words.into_iter().map(|w| w.text).collect()
}

/// Estimated seconds of speech in `text`: the characters of its [`spoken_words`] (URLs left
/// as words are not estimated) at [`SPEECH_CHARS_PER_SEC`].
pub fn estimated_speech_secs(text: &str) -> f64 {
    let chars: usize = spoken_words(text)
        .iter()
        .filter(|t| !is_url(t))
        .map(|t| t.chars().count() + 1)
        .sum();
    chars as f64 / SPEECH_CHARS_PER_SEC
}

/// The first of the [`spoken_words`] longer than [`MAX_WORD_CHARS`], if any (URLs left as
/// words are not held to it).
pub fn overlong_word(text: &str) -> Option<String> {
    spoken_words(text)
        .into_iter()
        .find(|t| !is_url(t) && t.chars().count() > MAX_WORD_CHARS)
}

/// A scene shorter than this merges with its neighbour when it can.
const MIN_SCENE_WORDS: usize = 8;
/// Sentences are merged into one scene only while the scene stays within this.
const MAX_SCENE_WORDS: usize = 25;
/// A single sentence longer than this is split at a comma/semicolon or near its middle.
const MAX_SENTENCE_WORDS: usize = 30;
/// Neither part of a split sentence is shorter than this when a better cut exists.
const MIN_SPLIT_PART: usize = 5;

const IMAGE_EXTENSIONS: &[&str] = &["jpg", "jpeg", "png", "webp", "gif"];
const VIDEO_EXTENSIONS: &[&str] = &["mp4", "mov", "webm", "m4v"];

/// Splits a script into scenes and attaches its inline media. See the module docs.
///
/// A script without spoken words gives no scenes (its media, having no scene, is dropped).
/// When two media target the same scene, the later one moves to the nearest scene without
/// media; media beyond one per scene is dropped.
pub fn split_script(script: &str) -> Vec<SceneDraft> {
    let parsed = parse(script);
    if parsed.words.is_empty() {
        return Vec::new();
    }
    let sentences = sentences(&parsed);
    let scenes = group(&sentences, &parsed.forced_breaks);

    let scene_of_word = |w: usize| -> usize {
        let w = w.min(parsed.words.len() - 1);
        scenes
            .iter()
            .position(|s| w < s.end)
            .unwrap_or(scenes.len() - 1)
    };
    let mut media: Vec<Option<InlineMedia>> = vec![None; scenes.len()];
    for m in &parsed.media {
        let mut target = scene_of_word(m.anchor_word);
        if m.own_line
            && let Some(alt) = &m.media.alt
            && let Some(sentence) = best_match(alt, &sentences, &parsed.words, m.anchor_word)
        {
            target = scene_of_word(sentences[sentence].start);
        }
        if media[target].is_some() {
            // Nearest free scene, preferring later ones at equal distance.
            let free = (0..scenes.len())
                .filter(|&i| media[i].is_none())
                .min_by_key(|&i| (i.abs_diff(target), i < target));
            match free {
                Some(i) => target = i,
                None => continue,
            }
        }
        media[target] = Some(m.media.clone());
    }

    scenes
        .iter()
        .zip(media)
        .map(|(range, media)| SceneDraft {
            text: parsed.words[range.start..range.end]
                .iter()
                .map(|w| w.text.as_str())
                .collect::<Vec<_>>()
                .join(" "),
            media,
        })
        .collect()
}

/// A spoken word and what surrounds it.
#[derive(Debug)]
struct Word {
    text: String,
    /// A blank line (or the start of the script) precedes this word.
    paragraph_start: bool,
    /// This word starts a line (after a single newline).
    line_start: bool,
    /// Removed media right after this word carried sentence-ending punctuation.
    media_ends_sentence: bool,
}

/// Media found in the script, with where it sat.
#[derive(Debug)]
struct PlacedMedia {
    media: InlineMedia,
    /// Media on a line of its own (or only with other media).
    own_line: bool,
    /// Index of the spoken word the media belongs next to: for own-line media the first word
    /// after it (or the last word of the script when none follows); for media inside a line the
    /// word before it on that line, else the word after it.
    anchor_word: usize,
}

#[derive(Debug)]
struct Parsed {
    words: Vec<Word>,
    media: Vec<PlacedMedia>,
    /// Word indices where a new scene must start (after own-line media).
    forced_breaks: Vec<usize>,
}

/// Piece of one line: text or a media token.
enum Piece<'a> {
    Text(&'a str),
    Media {
        media: InlineMedia,
        ends_sentence: bool,
    },
}

fn parse(script: &str) -> Parsed {
    let mut words: Vec<Word> = Vec::new();
    let mut media = Vec::new();
    let mut forced_breaks = Vec::new();
    let mut blank_line = true; // the script start counts as a paragraph start
    // Own-line media waiting for the next spoken word.
    let mut pending_own_line: Vec<usize> = Vec::new();

    for line in script.lines() {
        let pieces = line_pieces(line);
        let has_words = pieces
            .iter()
            .any(|p| matches!(p, Piece::Text(t) if !t.trim().is_empty()));
        let has_media = pieces.iter().any(|p| matches!(p, Piece::Media { .. }));
        if !has_words && !has_media {
            blank_line = true;
            continue;
        }
        if !has_words {
            for p in pieces {
                if let Piece::Media { media: m, .. } = p {
                    pending_own_line.push(media.len());
                    media.push(PlacedMedia {
                        media: m,
                        own_line: true,
                        anchor_word: usize::MAX,
                    });
                }
            }
            continue;
        }

        let line_first_word = words.len();
        if !pending_own_line.is_empty() {
            for i in pending_own_line.drain(..) {
                media[i].anchor_word = line_first_word;
            }
            forced_breaks.push(line_first_word);
        }
        let mut first_on_line = true;
        let mut inline_waiting: Vec<usize> = Vec::new();
        for p in pieces {
            match p {
                Piece::Text(t) => {
                    for w in t.split_whitespace() {
                        for i in inline_waiting.drain(..) {
                            media[i].anchor_word = words.len();
                        }
                        words.push(Word {
                            text: w.to_string(),
                            paragraph_start: first_on_line && blank_line,
                            line_start: first_on_line,
                            media_ends_sentence: false,
                        });
                        first_on_line = false;
                    }
                }
                Piece::Media {
                    media: m,
                    ends_sentence,
                } => {
                    let idx = media.len();
                    if first_on_line {
                        inline_waiting.push(idx);
                    } else {
                        let last = words.len() - 1;
                        if ends_sentence {
                            words[last].media_ends_sentence = true;
                        }
                    }
                    media.push(PlacedMedia {
                        media: m,
                        own_line: false,
                        anchor_word: words.len().saturating_sub(1),
                    });
                }
            }
        }
        blank_line = false;
    }
    let last = words.len().saturating_sub(1);
    for i in pending_own_line {
        media[i].anchor_word = last;
    }
    Parsed {
        words,
        media,
        forced_breaks,
    }
}

/// Splits one line into text and media pieces.
fn line_pieces(line: &str) -> Vec<Piece<'_>> {
    let mut pieces = Vec::new();
    let mut text_start = 0;
    let mut i = 0;
    let bytes = line.as_bytes();
    while i < line.len() {
        // Markdown image.
        if line[i..].starts_with("![")
            && let Some((end, media)) = markdown_image(line, i)
        {
            if text_start < i {
                pieces.push(Piece::Text(&line[text_start..i]));
            }
            let (after, ends_sentence) = absorb_trailing_punctuation(line, end);
            pieces.push(Piece::Media {
                media,
                ends_sentence,
            });
            i = after;
            text_start = after;
            continue;
        }
        // A whitespace-separated word that is a raw direct media URL.
        let at_word_start = i == 0 || line[..i].ends_with(char::is_whitespace);
        if at_word_start && !bytes[i].is_ascii_whitespace() {
            let end = line[i..]
                .find(char::is_whitespace)
                .map_or(line.len(), |e| i + e);
            let word = &line[i..end];
            if let Some((media, ends_sentence)) = raw_media_url(word) {
                if text_start < i {
                    pieces.push(Piece::Text(&line[text_start..i]));
                }
                pieces.push(Piece::Media {
                    media,
                    ends_sentence,
                });
                i = end;
                text_start = end;
                continue;
            }
        }
        i += line[i..].chars().next().map_or(1, char::len_utf8);
    }
    if text_start < line.len() {
        pieces.push(Piece::Text(&line[text_start..]));
    }
    pieces
}

/// Parses `![alt](url "optional title")` starting at byte `at`; returns the end byte and media.
fn markdown_image(line: &str, at: usize) -> Option<(usize, InlineMedia)> {
    let rest = &line[at + 2..];
    let close_alt = rest.find(']')?;
    let alt = &rest[..close_alt];
    let after_alt = &rest[close_alt + 1..];
    if !after_alt.starts_with('(') {
        return None;
    }
    let mut depth = 0usize;
    let mut close = None;
    for (j, c) in after_alt.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(j);
                    break;
                }
            }
            _ => {}
        }
    }
    let close = close?;
    let inner = after_alt[1..close].trim();
    let url = inner.split_whitespace().next()?;
    let url = url.trim_start_matches('<').trim_end_matches('>');
    if url.is_empty() {
        return None;
    }
    let alt = alt.trim();
    let media = InlineMedia {
        url: url.to_string(),
        alt: (!alt.is_empty()).then(|| alt.to_string()),
        kind: media_kind(url).unwrap_or(MediaKind::Image),
    };
    Some((at + 2 + close_alt + 1 + close + 1, media))
}

/// After a media token ending at `end`, swallows glued punctuation (`![x](a.jpg).`) so it is not
/// left behind as a spoken "word"; reports whether it ended a sentence.
fn absorb_trailing_punctuation(line: &str, end: usize) -> (usize, bool) {
    let rest = &line[end..];
    let run = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let glued = &rest[..run];
    if !glued.is_empty() && glued.chars().all(|c| !c.is_alphanumeric()) && !glued.contains("![") {
        (end + run, glued.contains(['.', '!', '?', '…']))
    } else {
        (end, false)
    }
}

/// Opening and closing characters that may wrap a word (quotes, brackets).
const OPENERS: &[char] = &['(', '[', '{', '<', '"', '\'', '“', '‘', '«', '*', '_'];
const CLOSERS: &[char] = &[')', ']', '}', '>', '"', '\'', '”', '’', '»', '*', '_'];

/// A whole word that is a raw direct media URL, possibly wrapped in brackets or followed by
/// punctuation (which belongs to the token); returns the media and whether it ended a sentence.
fn raw_media_url(word: &str) -> Option<(InlineMedia, bool)> {
    let start = word.trim_start_matches(OPENERS);
    let core = start.trim_end_matches(|c: char| CLOSERS.contains(&c) || ".,;:!?…".contains(c));
    let lower = core.to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        return None;
    }
    let kind = media_kind(core)?;
    let trailing = &start[core.len()..];
    let ends_sentence = trailing.contains(['.', '!', '?', '…']);
    Some((
        InlineMedia {
            url: core.to_string(),
            alt: None,
            kind,
        },
        ends_sentence,
    ))
}

/// The media kind of a URL from its path's extension, if it is a direct media file.
fn media_kind(url: &str) -> Option<MediaKind> {
    let path = url.split(['?', '#']).next().unwrap_or(url);
    let after_scheme = path.split_once("://").map_or(path, |(_, rest)| rest);
    // A bare host ("https://example.png") has no path, so it is not a file.
    let file = after_scheme.split_once('/').map(|(_, p)| p)?;
    let name = file.rsplit('/').next()?;
    let (_, ext) = name.rsplit_once('.')?;
    let ext = ext.to_ascii_lowercase();
    if IMAGE_EXTENSIONS.contains(&ext.as_str()) {
        Some(MediaKind::Image)
    } else if VIDEO_EXTENSIONS.contains(&ext.as_str()) {
        Some(MediaKind::Video)
    } else {
        None
    }
}

/// A sentence (or a part of an over-long one): a range of word indices.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Span {
    start: usize,
    end: usize,
}

impl Span {
    fn len(&self) -> usize {
        self.end - self.start
    }
}

/// Titles and other abbreviations that are followed by a name or number, never a new sentence.
const NEVER_FINAL: &[&str] = &[
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "mt", "vs", "e.g", "i.e", "cf", "approx",
    "fig", "no", "nos", "vol", "pp", "gen", "col", "lt", "sgt", "capt", "rev", "hon", "gov", "sen",
    "rep", "ft", "est", "ca", "viz", "ths", "ts", "pgs", "gs",
];

/// The spoken sentences of `text` (media removed, very long sentences split), by the same
/// rules as scene splitting. The writer scores these.
pub fn split_sentences(text: &str) -> Vec<String> {
    let parsed = parse(text);
    sentences(&parsed)
        .into_iter()
        .map(|s| {
            parsed.words[s.start..s.end]
                .iter()
                .map(|w| w.text.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

fn sentences(parsed: &Parsed) -> Vec<Span> {
    let words = &parsed.words;
    let mut out = Vec::new();
    let mut start = 0;
    for i in 0..words.len() {
        let next = words.get(i + 1);
        let boundary = match next {
            None => true,
            Some(next) => {
                next.paragraph_start
                    || parsed.forced_breaks.contains(&(i + 1))
                    || ends_sentence(&words[i], next)
                    || (next.line_start && line_break_is_boundary(&words[i].text, &next.text))
            }
        };
        if boundary {
            split_long(Span { start, end: i + 1 }, words, &mut out);
            start = i + 1;
        }
    }
    out
}

/// Whether a sentence ends after `word`, given the word that follows on the same line.
fn ends_sentence(word: &Word, next: &Word) -> bool {
    if starts_lowercase(&next.text) {
        return false;
    }
    if word.media_ends_sentence {
        return true;
    }
    let core = word.text.trim_end_matches(CLOSERS);
    if core.ends_with(['!', '?', '…']) || core.ends_with("...") {
        return true;
    }
    if !core.ends_with('.') {
        return false;
    }
    !is_abbreviation(core)
}

/// `core` ends with a single '.': is it an abbreviation rather than a sentence end?
fn is_abbreviation(core: &str) -> bool {
    let stem = core.trim_start_matches(OPENERS).trim_end_matches('.');
    let lower = stem.to_lowercase();
    if NEVER_FINAL.contains(&lower.as_str()) {
        return true;
    }
    // Initials and initialisms: "J.", "U.S.", "e.g.", "Ph.D.", "a.m.".
    let groups: Vec<&str> = stem.split('.').collect();
    let is_initials = groups.iter().all(|g| {
        let n = g.chars().count();
        (1..=2).contains(&n) && g.chars().all(char::is_alphabetic)
    });
    let single_capital =
        groups.len() == 1 && stem.chars().count() == 1 && stem.chars().all(char::is_uppercase);
    is_initials && (groups.len() >= 2 || single_capital)
}

fn starts_lowercase(word: &str) -> bool {
    word.trim_start_matches(OPENERS)
        .chars()
        .next()
        .is_some_and(char::is_lowercase)
}

/// A single newline ends a sentence when the next line looks like a new one (a capital, a digit
/// or a list marker) and the previous line does not run on (comma, semicolon, hyphen).
fn line_break_is_boundary(prev: &str, next: &str) -> bool {
    if prev.ends_with([',', ';', '-', '–', '—']) {
        return false;
    }
    let next = next.trim_start_matches(OPENERS);
    let is_list_marker = matches!(next, "-" | "–" | "—" | "•" | "+")
        || (next.ends_with(['.', ')'])
            && next[..next.len() - 1].chars().all(|c| c.is_ascii_digit()));
    is_list_marker
        || next
            .chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || c.is_numeric())
}

/// Pushes `span`, first splitting it while it is longer than [`MAX_SENTENCE_WORDS`]: at the
/// clause punctuation (`,` `;` `:` or a dash) closest to the middle, else at the middle.
fn split_long(span: Span, words: &[Word], out: &mut Vec<Span>) {
    if span.len() <= MAX_SENTENCE_WORDS {
        out.push(span);
        return;
    }
    let middle = span.start + span.len() / 2;
    let mut best: Option<usize> = None; // split before this word
    for cut in span.start + MIN_SPLIT_PART..=span.end - MIN_SPLIT_PART {
        let before = words[cut - 1].text.trim_end_matches(CLOSERS);
        let clause_end = before.ends_with([',', ';', ':'])
            || matches!(words[cut].text.as_str(), "—" | "–" | "-" | "--");
        if clause_end && best.is_none_or(|b| cut.abs_diff(middle) < b.abs_diff(middle)) {
            best = Some(cut);
        }
    }
    let cut = best.unwrap_or(middle);
    split_long(
        Span {
            start: span.start,
            end: cut,
        },
        words,
        out,
    );
    split_long(
        Span {
            start: cut,
            end: span.end,
        },
        words,
        out,
    );
}

/// Groups sentences into scenes: a sentence joins the current scene while the scene is shorter
/// than [`MIN_SCENE_WORDS`] and stays within [`MAX_SCENE_WORDS`]; a forced break (own-line
/// media) always starts a new scene. A final short scene merges back when it fits.
fn group(sentences: &[Span], forced_breaks: &[usize]) -> Vec<Span> {
    let mut scenes: Vec<Span> = Vec::new();
    let mut forced_start: Vec<bool> = Vec::new();
    for s in sentences {
        let forced = forced_breaks.contains(&s.start);
        match scenes.last_mut() {
            Some(cur)
                if !forced
                    && cur.len() < MIN_SCENE_WORDS
                    && cur.len() + s.len() <= MAX_SCENE_WORDS =>
            {
                cur.end = s.end;
            }
            _ => {
                scenes.push(*s);
                forced_start.push(forced);
            }
        }
    }
    // A short scene left at the end (or before a forced break) joins the previous one.
    let mut i = 1;
    while i < scenes.len() {
        let short = scenes[i].len() < MIN_SCENE_WORDS;
        if short && !forced_start[i] && scenes[i - 1].len() + scenes[i].len() <= MAX_SENTENCE_WORDS
        {
            scenes[i - 1].end = scenes[i].end;
            scenes.remove(i);
            forced_start.remove(i);
        } else {
            i += 1;
        }
    }
    scenes
}

/// Words too common to tie alt text to a sentence (English and Vietnamese).
const STOPWORDS: &[&str] = &[
    "at", "in", "on", "of", "to", "is", "it", "an", "as", "by", "or", "be", "we", "us", "my",
    "the", "and", "for", "with", "this", "that", "from", "are", "was", "were", "its", "our",
    "your", "their", "his", "her", "has", "have", "had", "but", "not", "you", "all", "can", "will",
    "into", "onto", "out", "about", "over", "under", "image", "photo", "picture", "video", "clip",
    "của", "và", "là", "có", "các", "những", "một", "cho", "với", "được", "trong", "này", "đã",
    "sẽ", "thì", "mà", "để", "ảnh", "hình",
];

fn match_tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| t.chars().count() >= 2)
        .map(str::to_lowercase)
        .filter(|t| !STOPWORDS.contains(&t.as_str()))
        .collect()
}

/// The sentence that best matches `alt` (share of the alt's content words it contains, at least
/// a third of them), nearest to `near` among equals; `None` when nothing matches well.
fn best_match(alt: &str, sentences: &[Span], words: &[Word], near: usize) -> Option<usize> {
    let alt_tokens = match_tokens(alt);
    if alt_tokens.is_empty() {
        return None;
    }
    let mut best: Option<(usize, f64)> = None;
    for (i, s) in sentences.iter().enumerate() {
        let text: Vec<&str> = words[s.start..s.end]
            .iter()
            .map(|w| w.text.as_str())
            .collect();
        let tokens = match_tokens(&text.join(" "));
        let hits = alt_tokens.iter().filter(|t| tokens.contains(t)).count();
        let score = hits as f64 / alt_tokens.len() as f64;
        let distance = |i: usize| {
            let s = sentences[i];
            if near < s.start {
                s.start - near
            } else {
                near.saturating_sub(s.end - 1)
            }
        };
        let better = match best {
            None => true,
            Some((b, bs)) => {
                score > bs + 1e-9 || ((score - bs).abs() <= 1e-9 && distance(i) < distance(b))
            }
        };
        if better {
            best = Some((i, score));
        }
    }
    best.filter(|(_, score)| *score >= 1.0 / 3.0 - 1e-9)
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narration_is_bounded_by_source_and_length_above_what_the_spec_names() {
        for length in [VideoLength::Short, VideoLength::Normal] {
            assert_eq!(max_narration_secs(Source::Text, length), 300.0);
            assert_eq!(max_narration_secs(Source::AudioUrl, length), 300.0);
        }
        for source in [Source::Idea, Source::Blog] {
            // The spec's "about 90 s" and "about 3 min" fit under the bound.
            assert_eq!(max_narration_secs(source, VideoLength::Short), 120.0);
            assert_eq!(max_narration_secs(source, VideoLength::Normal), 210.0);
        }
    }

    /// The scenes hold exactly the words the limits count.
    fn assert_scenes_hold_the_spoken_words(script: &str) {
        let held: Vec<String> = split_script(script)
            .iter()
            .flat_map(|s| {
                s.text
                    .split_whitespace()
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(held, spoken_words(script), "{script:?}");
    }

    #[test]
    fn media_glued_inside_a_word_splits_it_and_the_limits_count_both_halves() {
        // Found by the `script` fuzz target: the token holds a URL, so the limits skipped it
        // whole, yet its scenes speak `one` and `two`; a script could hide any amount of
        // speech (and words of any length) between glued images.
        let glued = format!(
            "{}![](https://e.com/a.png){}",
            "a".repeat(70),
            "b".repeat(70)
        );
        assert_eq!(spoken_words(&glued), ["a".repeat(70), "b".repeat(70)]);
        assert_eq!(overlong_word(&glued), Some("a".repeat(70)));
        let hidden = "word![](https://e.com/a.png)".repeat(2000);
        assert!(estimated_speech_secs(&hidden) > MAX_SPEECH_SECS);
        assert_scenes_hold_the_spoken_words(&hidden);
        // Plain URLs stay words, read out but neither estimated nor held to the length limit.
        let url = format!("see https://example.com/{}", "p".repeat(80));
        assert_eq!(overlong_word(&url), None);
        assert!(estimated_speech_secs(&url) < 1.0);
    }

    /// The inputs the fuzz target found (`fuzz/regressions/script/`), replayed.
    #[test]
    fn fuzz_regressions_keep_the_word_invariant() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions/script");
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).expect("fuzz/regressions/script") {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            if let Ok(script) = std::str::from_utf8(&bytes) {
                assert_scenes_hold_the_spoken_words(script);
                n += 1;
            }
        }
        assert!(n > 0, "no regression inputs in {}", dir.display());
    }

    /// Renders scenes one per line: `words | kind url "alt"`.
    fn render(scenes: &[SceneDraft]) -> String {
        let mut out = String::new();
        for s in scenes {
            out.push_str(&s.text);
            if let Some(m) = &s.media {
                let kind = match m.kind {
                    MediaKind::Image => "image",
                    MediaKind::Video => "video",
                };
                out.push_str(&format!(" | {kind} {}", m.url));
                if let Some(alt) = &m.alt {
                    out.push_str(&format!(" \"{alt}\""));
                }
            }
            out.push('\n');
        }
        out
    }

    /// Splits `input`, compares with `expected` (one scene per line, see [`render`]; leading
    /// indentation ignored) and checks the spoken-words invariant.
    #[track_caller]
    fn check(input: &str, expected: &str) {
        let scenes = split_script(input);
        let got = render(&scenes);
        let want: String = expected
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(|l| format!("{l}\n"))
            .collect();
        assert!(
            got == want,
            "input:\n{input}\n--- expected:\n{want}--- got:\n{got}"
        );
        assert_words_preserved(input, &scenes);
    }

    /// Scene words concatenated = script words minus media tokens, computed independently.
    fn assert_words_preserved(input: &str, scenes: &[SceneDraft]) {
        let got: Vec<&str> = scenes
            .iter()
            .flat_map(|s| s.text.split_whitespace())
            .collect();
        let want: Vec<String> = reference_spoken_words(input);
        assert_eq!(got, want, "spoken words changed for {input:?}");
        for s in scenes {
            assert!(!s.text.trim().is_empty(), "empty scene in {scenes:?}");
        }
    }

    /// Independent reference: drop markdown images (and glued trailing punctuation), then words
    /// that are direct media URLs.
    fn reference_spoken_words(input: &str) -> Vec<String> {
        let mut words = Vec::new();
        for line in input.lines() {
            let mut rest = line.to_string();
            while let Some(start) = rest.find("![") {
                let Some(m) = markdown_image(&rest, start) else {
                    break;
                };
                let (end, _) = absorb_trailing_punctuation(&rest, m.0);
                rest.replace_range(start..end, " ");
            }
            words.extend(
                rest.split_whitespace()
                    .filter(|w| raw_media_url(w).is_none())
                    .map(String::from),
            );
        }
        words
    }

    #[test]
    fn plain_english() {
        check(
            "The sun rose over the quiet harbour this morning. Fishermen were already mending their nets. \
             A gull screamed. Then the first boat left, its engine coughing into the cold air, and the day began.",
            "The sun rose over the quiet harbour this morning.
             Fishermen were already mending their nets. A gull screamed.
             Then the first boat left, its engine coughing into the cold air, and the day began.",
        );
    }

    #[test]
    fn short_sentences_merge() {
        check(
            "Stop. Look. Listen. Now think about what you heard today. Good.",
            "Stop. Look. Listen. Now think about what you heard today. Good.",
        );
        check("Hi.", "Hi.");
        check("", "");
        check("  \n\n \t ", "");
    }

    #[test]
    fn vietnamese() {
        check(
            "Hà Nội là thủ đô của Việt Nam, một thành phố nghìn năm văn hiến. Mùa thu ở đây rất đẹp! \
             Bạn đã bao giờ đến Hồ Gươm vào buổi sáng sớm chưa? Đó là trải nghiệm tuyệt vời… Hãy thử một lần.",
            "Hà Nội là thủ đô của Việt Nam, một thành phố nghìn năm văn hiến.
             Mùa thu ở đây rất đẹp! Bạn đã bao giờ đến Hồ Gươm vào buổi sáng sớm chưa?
             Đó là trải nghiệm tuyệt vời… Hãy thử một lần.",
        );
    }

    #[test]
    fn numbers_and_decimals() {
        check(
            "Revenue grew 3.5% to $1,200.50 in 2024 across all regions. Margins held at 12.5 percent for the whole year. \
             Version 2.0.1 ships on 1.1.2025 to every customer worldwide.",
            "Revenue grew 3.5% to $1,200.50 in 2024 across all regions.
             Margins held at 12.5 percent for the whole year.
             Version 2.0.1 ships on 1.1.2025 to every customer worldwide.",
        );
    }

    #[test]
    fn abbreviations() {
        check(
            "Dr. Smith moved to the U.S. in 1990 with Mrs. Jones and their dog. Many fruits, e.g. apples and pears, grow well there. \
             He met J. R. R. Tolkien at 5 p.m. on a rainy Tuesday afternoon.",
            "Dr. Smith moved to the U.S. in 1990 with Mrs. Jones and their dog.
             Many fruits, e.g. apples and pears, grow well there.
             He met J. R. R. Tolkien at 5 p.m. on a rainy Tuesday afternoon.",
        );
    }

    #[test]
    fn urls_mid_sentence_are_spoken() {
        check(
            "Visit https://example.com/docs.html?a=1.5&b=2 for the full guide to our product. \
             The page at www.example.org. explains pricing in great detail for every plan.",
            "Visit https://example.com/docs.html?a=1.5&b=2 for the full guide to our product.
             The page at www.example.org. explains pricing in great detail for every plan.",
        );
    }

    #[test]
    fn empty_lines_and_paragraphs() {
        check(
            "First paragraph has exactly these nine words in it\n\n\n\
             Second paragraph starts here and has no final stop either\n\
             \n   \nThird one is short.",
            "First paragraph has exactly these nine words in it
             Second paragraph starts here and has no final stop either Third one is short.",
        );
        check(
            "Three tips for better sleep:\n- Go to bed at the same time every night\n- Keep the bedroom cool and dark\n- Skip coffee after noon",
            "Three tips for better sleep: - Go to bed at the same time every night
             - Keep the bedroom cool and dark - Skip coffee after noon",
        );
        // A hard-wrapped sentence stays one sentence.
        check(
            "The quick brown fox jumps over\nthe lazy dog while the farmer\nwatches from his porch.",
            "The quick brown fox jumps over the lazy dog while the farmer watches from his porch.",
        );
    }

    #[test]
    fn very_long_sentence_splits_at_clause_or_middle() {
        let long = "When the committee finally met after months of delay, the members argued about the budget, \
                    the schedule and the venue for hours; nobody wanted to concede a single point to the other side \
                    and the chair eventually gave up and sent everyone home without a decision.";
        let scenes = split_script(long);
        assert!(scenes.len() >= 2, "{scenes:?}");
        for s in &scenes {
            assert!(word_count(&s.text) <= MAX_SENTENCE_WORDS, "{s:?}");
        }
        check(
            long,
            "When the committee finally met after months of delay, the members argued about the budget, the schedule and the venue for hours;
             nobody wanted to concede a single point to the other side and the chair eventually gave up and sent everyone home without a decision.",
        );
        let no_punct = (1..=40)
            .map(|i| format!("w{i}"))
            .collect::<Vec<_>>()
            .join(" ");
        let scenes = split_script(&no_punct);
        assert_eq!(
            scenes
                .iter()
                .map(|s| word_count(&s.text))
                .collect::<Vec<_>>(),
            [20, 20]
        );
    }

    #[test]
    fn markdown_images_with_and_without_alt() {
        check(
            "Our trip started in the mountains with a long hike.\n\
             ![Snowy mountain peak](https://cdn.example.com/peak.JPG)\n\
             The snowy peak looked unreal in the early morning light.\n\
             ![](https://cdn.example.com/lake.png \"title\")\n\
             Then we reached a lake so clear you could see the bottom.",
            "Our trip started in the mountains with a long hike.
             The snowy peak looked unreal in the early morning light. | image https://cdn.example.com/peak.JPG \"Snowy mountain peak\"
             Then we reached a lake so clear you could see the bottom. | image https://cdn.example.com/lake.png",
        );
    }

    #[test]
    fn raw_urls_on_their_own_line() {
        check(
            "Cities never sleep and neither do their streets at night.\n\
             https://media.example.com/clips/night-traffic.mp4?token=abc\n\
             Traffic flows like a river of light through the avenues below.\n\
             https://media.example.com/skyline.webp\n\
             The skyline glows until the first light of dawn appears.",
            "Cities never sleep and neither do their streets at night.
             Traffic flows like a river of light through the avenues below. | video https://media.example.com/clips/night-traffic.mp4?token=abc
             The skyline glows until the first light of dawn appears. | image https://media.example.com/skyline.webp",
        );
    }

    #[test]
    fn mixed_forms_and_alt_anchoring() {
        // The alt text names the lighthouse, so the image goes to that scene, not the next one.
        check(
            "The old lighthouse has guarded this coast for two hundred years.\n\
             Fishermen still trust its beam on the darkest winter nights.\n\
             ![The old lighthouse at dusk](https://x.example/lighthouse.jpeg)\n\
             Tourists arrive every summer to climb its narrow stairs.\n\
             https://x.example/stairs.mov\n\
             At the top, the view stretches all the way to the islands.",
            "The old lighthouse has guarded this coast for two hundred years. | image https://x.example/lighthouse.jpeg \"The old lighthouse at dusk\"
             Fishermen still trust its beam on the darkest winter nights.
             Tourists arrive every summer to climb its narrow stairs.
             At the top, the view stretches all the way to the islands. | video https://x.example/stairs.mov",
        );
    }

    #[test]
    fn media_at_start_and_end() {
        check(
            "https://x.example/intro.gif\n\
             Welcome to the channel where we explore tiny kitchens around the world.\n\
             Today we visit a flat in Lisbon with a kitchen of four square metres.\n\
             ![A tiny kitchen](https://x.example/outro.png)",
            "Welcome to the channel where we explore tiny kitchens around the world. | image https://x.example/intro.gif
             Today we visit a flat in Lisbon with a kitchen of four square metres. | image https://x.example/outro.png \"A tiny kitchen\"",
        );
        // Media on the last line without alt attaches to the scene before it.
        check(
            "One last sentence closes this rather short script for good.\nhttps://x.example/end.mp4",
            "One last sentence closes this rather short script for good. | video https://x.example/end.mp4",
        );
        // Only media: nothing to speak.
        check("https://x.example/a.png\n![b](https://x.example/b.png)", "");
    }

    #[test]
    fn inline_media_is_removed_from_speech() {
        check(
            "Look at this ![a red car](https://x.example/car.png) parked outside the old station today. \
             It was shot on https://x.example/clip.m4v. a cheap phone camera.",
            "Look at this parked outside the old station today. | image https://x.example/car.png \"a red car\"
             It was shot on a cheap phone camera. | video https://x.example/clip.m4v",
        );
        // Glued punctuation goes with the media and still ends the sentence.
        check(
            "Here is the photo ![x](https://x.example/p.jpg). Next comes a totally different sentence about cats and dogs.",
            "Here is the photo Next comes a totally different sentence about cats and dogs. | image https://x.example/p.jpg \"x\"",
        );
        // Not media: a page URL, a bare host, an image extension in the query only.
        check(
            "See https://example.com/gallery and https://photo.png and https://e.com/view?f=a.jpg today.",
            "See https://example.com/gallery and https://photo.png and https://e.com/view?f=a.jpg today.",
        );
    }

    #[test]
    fn two_media_for_one_scene_spread_out() {
        check(
            "First scene talks about the morning routine of a baker.\n\
             https://x.example/a.jpg\n\
             https://x.example/b.jpg\n\
             Second scene shows the bread coming out of the oven.",
            "First scene talks about the morning routine of a baker. | image https://x.example/b.jpg
             Second scene shows the bread coming out of the oven. | image https://x.example/a.jpg",
        );
    }

    #[test]
    fn word_count_splits_on_whitespace() {
        assert_eq!(word_count(""), 0);
        assert_eq!(word_count("  one\ttwo\nthree  "), 3);
        assert_eq!(word_count("3.5% — don't"), 3);
        assert_eq!(word_count("Xin chào các bạn"), 4);
    }

    /// Tiny deterministic PRNG for the property test (xorshift64*).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }
        fn pick<T: Copy>(&mut self, items: &[T]) -> T {
            items[(self.next() % items.len() as u64) as usize]
        }
        fn chance(&mut self, percent: u64) -> bool {
            self.next() % 100 < percent
        }
    }

    #[test]
    fn property_spoken_words_are_preserved() {
        const WORDS: &[&str] = &[
            "the",
            "Cat",
            "3.5%",
            "2024",
            "e.g.",
            "Dr.",
            "U.S.",
            "don't",
            "Hà",
            "Nội",
            "thủ",
            "đô",
            "việt",
            "https://example.com/page",
            "www.x.org",
            "—",
            "-",
            "…",
            "(aside)",
            "\"quoted\"",
            "a.m.",
            "1,000",
            "end.",
            "why?",
            "wow!",
            "so,",
            "semi;",
            "colon:",
            "wait...",
            "Ph.D.",
            "x",
            "Đẹp",
            "ok…",
            "3.",
        ];
        const MEDIA: &[&str] = &[
            "https://m.example/a.jpg",
            "https://m.example/v.MP4?x=1",
            "![alt text here](https://m.example/b.png)",
            "![](https://m.example/c.webm)",
            "![Cat on the U.S. flag](https://m.example/d.gif \"t\")",
            "(https://m.example/e.jpeg)",
        ];
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        for case in 0..400 {
            let mut script = String::new();
            let mut expected: Vec<String> = Vec::new();
            let lines = 1 + rng.next() % 12;
            for _ in 0..lines {
                match rng.next() % 10 {
                    0 => script.push('\n'), // blank line
                    1 => {
                        script.push_str(rng.pick(MEDIA));
                        script.push('\n');
                    }
                    _ => {
                        let n = 1 + rng.next() % 45;
                        for k in 0..n {
                            if k > 0 {
                                script.push_str(rng.pick(&[" ", "  ", "\t"]));
                            }
                            if rng.chance(5) {
                                script.push_str(rng.pick(MEDIA));
                                script.push(' ');
                            }
                            let w = rng.pick(WORDS);
                            script.push_str(w);
                            expected.push(w.to_string());
                        }
                        script.push('\n');
                    }
                }
            }
            let scenes = split_script(&script);
            let got: Vec<&str> = scenes
                .iter()
                .flat_map(|s| s.text.split_whitespace())
                .collect();
            assert_eq!(got, expected, "case {case}: script {script:?}");
            assert_words_preserved(&script, &scenes);
            for s in &scenes {
                assert!(
                    word_count(&s.text) <= MAX_SENTENCE_WORDS,
                    "case {case}: {s:?}"
                );
            }
            if !expected.is_empty() && script.lines().any(|l| MEDIA.contains(&l)) {
                assert!(
                    scenes.iter().any(|s| s.media.is_some()),
                    "case {case}: media lost in {script:?}"
                );
            }
        }
    }

    /// The split rules over a corpus of natural scripts: words verbatim; no sentence of at most
    /// `MAX_SENTENCE_WORDS` words is ever split across scenes; scenes stay within
    /// `MAX_SCENE_WORDS` unless one sentence alone is longer.
    #[test]
    fn split_rules_hold_on_a_corpus() {
        const CORPUS: &[&str] = &[
            "Hà Nội có hơn 8 triệu dân. Mỗi sáng, hàng nghìn xe máy đổ ra đường lúc 6 giờ 30. \
             Bạn có thể xem bản đồ tại https://maps.example.vn/hanoi?zoom=12 trước khi đi. Giá vé xe buýt chỉ 7.000 đồng.\n\n\
             Hãy thử đi bộ quanh Hồ Gươm vào cuối tuần! Không khí ở đó trong lành hơn bạn nghĩ.",
            "In 2023, revenue rose 12.5% to $4.2 million. Costs fell by 1,200 dollars per month, \
             see https://example.com/report.pdf?page=3 for details. Q3 was the best quarter since 2019.",
            "\n\n\nFirst line after empty lines.\n\n\n\nSecond paragraph with more words in it than the first one had.\n\n",
            "Short. Very short. Tiny. Small sentences keep coming. And more. Until the end. Done now.",
            "Visit www.example.org or email hello@example.com today. Call +1 (555) 010-9999 after 5 p.m. \
             The U.S. office opens at 9 a.m. on weekdays and closes at noon on Fridays.",
            "Một câu rất dài không có dấu chấm nào cả nhưng vẫn tiếp tục nói về nhiều điều khác nhau như \
             thời tiết công việc gia đình bạn bè và những kế hoạch cho tương lai gần của chúng ta",
            "Step 1: open the app.\nStep 2: tap the plus button.\nStep 3: record for 30 seconds.\n\nThat's it, you're done!",
            "He said \"don't stop\" and left. She replied: \"Why not?\" Nobody knew the answer to that one.",
            "Prices: 3.99, 4.50 and 10.00 dollars. Version 2.1.3 fixed the bug. Call it v2 for short, \
             or 2.x if you prefer, since https://x.example/a.b.c/ redirects anyway.",
            "![A chart](https://x.example/chart.png)\nSales doubled in 2024 thanks to video.\n\nhttps://x.example/clip.mp4\nWatch the clip to see how our team did it.",
        ];
        for script in CORPUS {
            let scenes = split_script(script);
            assert_words_preserved(script, &scenes);
            let mut scene_of = Vec::new();
            for (i, s) in scenes.iter().enumerate() {
                scene_of.extend(std::iter::repeat_n(i, word_count(&s.text)));
            }
            let mut at = 0;
            for sentence in split_sentences(script) {
                let n = word_count(&sentence);
                if n <= MAX_SENTENCE_WORDS {
                    assert_eq!(
                        scene_of[at],
                        scene_of[at + n - 1],
                        "sentence {sentence:?} split in {scenes:?}"
                    );
                }
                at += n;
            }
            for s in &scenes {
                let n = word_count(&s.text);
                let single = split_sentences(&s.text).len() == 1;
                assert!(n <= MAX_SCENE_WORDS || single, "{n} words: {s:?}");
                assert!(n <= MAX_SENTENCE_WORDS.max(MAX_SCENE_WORDS), "{s:?}");
            }
        }
    }
}
