//! Query strings of the plan's read endpoints: each value an integer within its range, or a
//! 400 with the parameter's own code and `param`.

use std::collections::HashMap;
use std::ops::RangeInclusive;

use foundation::error::{Code, Error, Result};

/// The query parameters as sent (the last value of a repeated name wins).
pub type Query = HashMap<String, String>;

/// The integer `name` of `q` within `range`; `None` when absent. Anything else (empty, not a
/// base-10 integer, out of range) is `code` with `param` `name`.
pub fn integer(
    q: &Query,
    name: &str,
    code: Code,
    range: RangeInclusive<i64>,
) -> Result<Option<i64>> {
    let Some(raw) = q.get(name) else {
        return Ok(None);
    };
    match raw.trim().parse::<i64>() {
        Ok(n) if range.contains(&n) => Ok(Some(n)),
        _ => Err(Error::new(
            code,
            format!(
                "`{name}` must be an integer from {} to {}.",
                range.start(),
                range.end()
            ),
        )
        .param(name)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_outside_their_range_or_malformed_name_the_parameter() {
        let q: Query = [
            ("page", "2"),
            ("cycle", "x"),
            ("from_record", "-1"),
            ("big", "1e3"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert_eq!(
            integer(&q, "page", Code::InvalidPage, 0..=9).unwrap(),
            Some(2)
        );
        assert_eq!(
            integer(&q, "absent", Code::InvalidPage, 0..=9).unwrap(),
            None
        );
        for (name, code) in [
            ("cycle", Code::InvalidCycle),
            ("from_record", Code::InvalidFromRecord),
            ("big", Code::InvalidPage),
        ] {
            let e = integer(&q, name, code, 0..=9).unwrap_err();
            assert_eq!((e.code, e.param.as_deref()), (code, Some(name)));
        }
    }
}
