//! Text → the phoneme ids a Piper voice reads, sentence by sentence, remembering which ids
//! belong to which input word so that word timings can be read off the model's durations.
//!
//! Piper voices are trained on espeak-ng's IPA phonemes: each sentence is `^`, then every
//! phoneme followed by the pad `_`, then `$`. Words are separated by a space phoneme and a clause
//! keeps its punctuation (`,` `.` `?` `!` `;` `:`), which is what makes the voice pause.

use std::collections::HashMap;
use std::ops::Range;

use super::super::espeak::PhonemeClause;

/// Characters that end a clause and are spoken as a pause.
const CLAUSE_PUNCTUATION: [char; 6] = [',', '.', '?', '!', ';', ':'];
/// Punctuation that ends a sentence (a separate inference call).
const SENTENCE_END: [char; 3] = ['.', '?', '!'];

/// A voice's symbol table: one id per IPA character (`phoneme_id_map` of the voice's JSON).
#[derive(Debug, Clone)]
pub(crate) struct SymbolTable {
    ids: HashMap<char, i64>,
    pad: i64,
    bos: i64,
    eos: i64,
    space: i64,
}

impl SymbolTable {
    /// From the voice config's `phoneme_id_map` (`{"a": [14], …}`); it must hold `_ ^ $` and
    /// the space.
    pub(crate) fn from_map(map: &HashMap<String, Vec<i64>>) -> Result<SymbolTable, String> {
        let mut ids = HashMap::new();
        for (symbol, list) in map {
            let mut chars = symbol.chars();
            if let (Some(c), None, Some(&id)) = (chars.next(), chars.next(), list.first()) {
                ids.insert(c, id);
            }
        }
        let get = |c: char| {
            ids.get(&c)
                .copied()
                .ok_or_else(|| format!("phoneme_id_map has no `{c}`"))
        };
        Ok(SymbolTable {
            pad: get('_')?,
            bos: get('^')?,
            eos: get('$')?,
            space: get(' ')?,
            ids,
        })
    }
}

/// One input word and the ids of the sentence that speak it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WordSpan {
    /// Index of the word among the text's whitespace-separated words.
    pub word: usize,
    /// The word's ids in the sentence (its phonemes and their pads).
    pub ids: Range<usize>,
}

/// One inference call: a sentence's ids and its words.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Sentence {
    pub ids: Vec<i64>,
    pub words: Vec<WordSpan>,
}

/// Byte ranges of the whitespace-separated words of `text`, in order.
pub(crate) fn word_bytes(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push(s..i);
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(s..text.len());
    }
    out
}

/// Groups espeak-ng's clauses into sentences of ids, each word of `text` placed in the clause
/// it starts in. Words in no clause (a lone dash) are left out: the caller times them as
/// silent.
pub(crate) fn sentences(
    text: &str,
    clauses: &[PhonemeClause],
    table: &SymbolTable,
) -> Vec<Sentence> {
    let words = word_bytes(text);
    let mut out = Vec::new();
    let mut current = Sentence {
        ids: vec![table.bos, table.pad],
        words: Vec::new(),
    };
    for (k, clause) in clauses.iter().enumerate() {
        let punctuation = text[clause.bytes.clone()]
            .trim_end()
            .chars()
            .next_back()
            .filter(|c| CLAUSE_PUNCTUATION.contains(c));
        let spoken = push_clause_ids(&mut current.ids, &clause.ipa, table);
        if let Some(p) = punctuation {
            push_symbol(&mut current.ids, p, table);
        }
        let in_clause: Vec<usize> = (0..words.len())
            .filter(|&w| clause.bytes.contains(&words[w].start))
            .collect();
        current
            .words
            .extend(place_words(text, &words, &in_clause, &spoken));
        let ends_sentence = punctuation.is_some_and(|p| SENTENCE_END.contains(&p));
        if ends_sentence || k + 1 == clauses.len() {
            current.ids.push(table.eos);
            out.push(std::mem::replace(
                &mut current,
                Sentence {
                    ids: vec![table.bos, table.pad],
                    words: Vec::new(),
                },
            ));
        } else {
            current.ids.extend([table.space, table.pad]);
        }
    }
    out
}

/// Appends one clause's phonemes (each IPA character's id, then a pad) and returns the id
/// range of each of its IPA words.
fn push_clause_ids(ids: &mut Vec<i64>, ipa: &str, table: &SymbolTable) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    for (k, word) in ipa.split(' ').enumerate() {
        if k > 0 {
            ids.extend([table.space, table.pad]);
        }
        let start = ids.len();
        for c in word.chars() {
            push_symbol(ids, c, table);
        }
        spans.push(start..ids.len());
    }
    spans
}

/// Appends one symbol's id and a pad; symbols the voice does not know are skipped.
fn push_symbol(ids: &mut Vec<i64>, c: char, table: &SymbolTable) {
    if let Some(&id) = table.ids.get(&c) {
        ids.extend([id, table.pad]);
    }
}

/// The ids of each input word of a clause: the IPA word's own ids when the clause has as many
/// IPA words as input words (the usual case), else a share of the clause's ids in proportion to
/// each word's length (espeak-ng reads "2024" as several words, and joins a few).
fn place_words(
    text: &str,
    words: &[Range<usize>],
    in_clause: &[usize],
    spoken: &[Range<usize>],
) -> Vec<WordSpan> {
    if in_clause.len() == spoken.len() {
        return in_clause
            .iter()
            .zip(spoken)
            .map(|(&word, ids)| WordSpan {
                word,
                ids: ids.clone(),
            })
            .collect();
    }
    let (Some(first), Some(last)) = (spoken.first(), spoken.last()) else {
        return Vec::new();
    };
    let (a, b) = (first.start as f64, last.end as f64);
    let at = |f: f64| (a + f * (b - a)).round() as usize;
    shares(text, words, in_clause)
        .into_iter()
        .map(|(word, (f0, f1))| WordSpan {
            word,
            ids: at(f0)..at(f1),
        })
        .collect()
}

/// Each word's share of its clause, in proportion to how long it takes to say
/// ([`super::super::spoken_weight`], at least one letter's worth for a word with letters).
fn shares(text: &str, words: &[Range<usize>], in_clause: &[usize]) -> Vec<(usize, (f64, f64))> {
    let weight = |w: usize| super::super::spoken_weight(&text[words[w].clone()]);
    let total: f64 = in_clause.iter().map(|&w| weight(w)).sum();
    let mut acc = 0.0;
    in_clause
        .iter()
        .map(|&w| {
            let start = acc;
            acc += weight(w);
            let part = if total > 0.0 {
                (start / total, acc / total)
            } else {
                (0.0, 1.0)
            };
            (w, part)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> SymbolTable {
        let mut map: HashMap<String, Vec<i64>> = HashMap::new();
        for (i, s) in ["_", "^", "$", " ", ",", ".", "?", "a", "b", "ə"]
            .iter()
            .enumerate()
        {
            map.insert(s.to_string(), vec![i as i64]);
        }
        SymbolTable::from_map(&map).unwrap()
    }

    #[test]
    fn word_bytes_splits_on_any_whitespace() {
        assert_eq!(word_bytes(" ab\tc  dé\n"), vec![1..3, 4..5, 7..10]);
        assert!(word_bytes("  ").is_empty());
    }

    #[test]
    fn a_sentence_is_bos_pad_phonemes_with_pads_and_eos() {
        let text = "ab b.";
        let clauses = [PhonemeClause {
            bytes: 0..5,
            ipa: "ab b".into(),
        }];
        let s = sentences(text, &clauses, &table());
        assert_eq!(s.len(), 1);
        // ^ _ a _ b _ ␠ _ b _ . _ $
        assert_eq!(s[0].ids, vec![1, 0, 7, 0, 8, 0, 3, 0, 8, 0, 5, 0, 2]);
        let spans: Vec<_> = s[0].words.iter().map(|w| (w.word, w.ids.clone())).collect();
        assert_eq!(spans, vec![(0, 2..6), (1, 8..10)]);
    }

    #[test]
    fn sentences_split_at_full_stops_and_clauses_keep_their_comma() {
        let text = "a, b. ab?";
        let clauses = [
            PhonemeClause {
                bytes: 0..3,
                ipa: "a".into(),
            },
            PhonemeClause {
                bytes: 3..6,
                ipa: "b".into(),
            },
            PhonemeClause {
                bytes: 6..9,
                ipa: "ab".into(),
            },
        ];
        let s = sentences(text, &clauses, &table());
        assert_eq!(s.len(), 2);
        // ^ _ a _ , _ ␠ _ b _ . _ $
        assert_eq!(s[0].ids, vec![1, 0, 7, 0, 4, 0, 3, 0, 8, 0, 5, 0, 2]);
        assert_eq!(
            s[0].words.iter().map(|w| w.word).collect::<Vec<_>>(),
            [0, 1]
        );
        assert_eq!(s[1].words[0].word, 2);
        assert_eq!(*s[1].ids.last().unwrap(), 2);
    }

    #[test]
    fn a_number_read_as_several_words_shares_its_clause_by_length() {
        // "a 12" read as three IPA words: the two input words share ids 2..14 as 1 : 6.
        let clauses = [PhonemeClause {
            bytes: 0..4,
            ipa: "a bb ab".into(),
        }];
        let s = sentences("a 12", &clauses, &table());
        let spans: Vec<_> = s[0].words.iter().map(|w| (w.word, w.ids.clone())).collect();
        assert_eq!(spans, vec![(0, 2..4), (1, 4..16)]);
    }

    #[test]
    fn unknown_symbols_are_skipped_and_a_table_needs_its_specials() {
        let clauses = [PhonemeClause {
            bytes: 0..1,
            ipa: "aʒ".into(),
        }];
        let s = sentences("a", &clauses, &table());
        assert_eq!(s[0].ids, vec![1, 0, 7, 0, 2]);
        let mut map = HashMap::new();
        map.insert("a".to_string(), vec![1]);
        assert!(SymbolTable::from_map(&map).is_err());
    }
}
