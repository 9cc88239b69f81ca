//! Request bodies that are one type each: a struct that deserialises, derives its OpenAPI
//! schema, and validates itself ([`Body`]). [`read`] checks a body against the type's own derived
//! schema before serde sees it, so a typed body answers exactly as [`Fields`](super::Fields)
//! does:
//! - absent and `null` are the same;
//! - a field of the wrong type answers with its own code (or `invalid_field`) and its `param`;
//! - a required field that is missing, `null` or blank text is `missing_field`;
//! - a number with no fractional part (`1500.0`) is an integer;
//! - an enumeration's names match without regard to ASCII case;
//! - a field may be sent under an alias ([`Body::ALIASES`]);
//! - fields the schema does not name are ignored.
//!
//! A body that is a union (an untagged enum of object forms, a `oneOf` in its schema) is checked
//! against one form: the one [`Body::form`] names by a field only it requires, or, when several
//! forms require that field, the one whose enumeration lists its value (a discriminator such as
//! `by`).
//!
//! The schema is the derive's, so what the OpenAPI document promises is what is checked.

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use serde::de::DeserializeOwned;
use serde_json::{Map, Number, Value};
use utoipa::ToSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{
    AdditionalProperties, Array, ArrayItems, Object, Schema, SchemaType, Type,
};

use crate::error::{Code, Error, Result};

/// A request body: one struct for its JSON, its schema and its rules.
pub trait Body: DeserializeOwned + ToSchema + 'static {
    /// What a valid body becomes.
    type Valid;
    /// The fields whose wrong type (or a name outside their enumeration) has a code of its own;
    /// every other field answers `invalid_field`.
    const CODES: &'static [(&'static str, Code)] = &[];
    /// Other names a field is read from, `(alias, field)`, when the field itself is absent.
    const ALIASES: &'static [(&'static str, &'static str)] = &[];
    /// The object fields whose inner errors name the inner field as `param` (`cta.phone`, and
    /// `brand.colors` for any item of that list); every other field's errors name the field.
    const DEEP_PARAMS: &'static [&'static str] = &[];
    /// The array fields checked item by item against their schema: the item count the schema
    /// allows, each item's type, and an object item's required fields. An error names the item
    /// (`scripts[1]`, `scripts[1].text`) as `param`, with the field's code.
    const ITEM_PARAMS: &'static [&'static str] = &[];
    /// Whether a required field that was not sent (or sent blank) is reported only once every
    /// field that was sent has been checked, enumerations' names included: a body whose rules
    /// run in a set order, where a wrong value sent outranks what is missing.
    const REQUIRED_LAST: bool = false;

    /// For a body whose schema is a union of object forms (a `#[serde(untagged)]` enum of
    /// structs): the field that says which form was sent, one that form alone requires, or an
    /// error when what was sent fits no form. `None`, the default, takes the first form whose
    /// required fields are all sent, else the first form.
    fn form(_sent: &Map<String, Value>) -> Result<Option<&'static str>> {
        Ok(None)
    }

    /// The rules a schema does not carry codes for: lengths and ranges with their own codes,
    /// rules across fields, defaults.
    fn validate(self) -> Result<Self::Valid>;
}

/// Reads `body` as `B` and validates it.
pub fn read<B: Body>(body: &Value) -> Result<B::Valid> {
    parse::<B>(body)?.validate()
}

/// Reads `body` as `B`, checked against `B`'s schema field by field, in the schema's order. A
/// union is checked against the form [`Body::form`] picks.
pub fn parse<B: Body>(body: &Value) -> Result<B> {
    let sent = body
        .as_object()
        .ok_or_else(|| Error::new(Code::InvalidJson, "The request body must be a JSON object."))?;
    let shape = Shape::cached::<B>();
    let form = shape.form::<B>(sent)?;
    let clean = checked::<B>(form, sent, false)?;
    let first = serde_path_to_error::deserialize(Value::Object(clean));
    match first {
        Ok(body) => Ok(body),
        Err(e) if shape.forms.len() == 1 => Err(refused::<B>(form, &e)),
        // Serde tries an untagged enum's variants in turn and keeps no path. Checked again
        // strictly (names as listed, arrays item by item), the form names the field it refused,
        // or reads with the names inside its arrays made exact.
        Err(first) => {
            let strict = checked::<B>(form, sent, true)?;
            serde_json::from_value(Value::Object(strict)).map_err(|_| {
                Error::new(
                    Code::InvalidField,
                    "The request body does not match the schema of this endpoint.",
                )
                .because(first.to_string())
            })
        }
    }
}

/// `sent` as `form` takes it: each field the form names checked in the schema's order, `null`
/// dropped, aliases read, a required field absent or blank refused. `strict` refuses an
/// enumeration's unlisted names here instead of leaving them to serde.
fn checked<B: Body>(
    form: &Field,
    sent: &Map<String, Value>,
    strict: bool,
) -> Result<Map<String, Value>> {
    let mut clean = Map::new();
    let mut missing = None;
    for (name, field) in &form.properties {
        let required = form.required.iter().any(|r| r == name);
        let value = sent_as::<B>(sent, name)
            .filter(|v| !(required && v.as_str().is_some_and(|s| s.trim().is_empty())));
        let Some(value) = value else {
            if required && !B::REQUIRED_LAST {
                return Err(Error::missing(name));
            }
            missing = missing.or(required.then_some(name));
            continue;
        };
        let at = Place {
            path: name,
            param: name,
            code: code_of::<B>(name),
            deep: B::DEEP_PARAMS.contains(&name.as_str()),
            items: B::ITEM_PARAMS.contains(&name.as_str()),
            strict,
        };
        clean.insert(name.clone(), field.check(&at, value)?);
    }
    match missing {
        // Serde would refuse the body for what is missing, before a name it does not list.
        Some(_) if !strict => checked::<B>(form, sent, true),
        Some(name) => Err(Error::missing(name)),
        None => Ok(clean),
    }
}

/// Field `name` of `sent`, or of one of its aliases; `null` is absent.
fn sent_as<'v, B: Body>(sent: &'v Map<String, Value>, name: &str) -> Option<&'v Value> {
    let given = |n: &str| sent.get(n).filter(|v| !v.is_null());
    given(name).or_else(|| {
        B::ALIASES
            .iter()
            .filter(|(_, field)| *field == name)
            .find_map(|(alias, _)| given(alias))
    })
}

/// Serde's refusal of a value the schema let through (a name outside an enumeration that is none
/// of its aliases either, a rule of a custom `Deserialize`), as the field's code and `param`.
fn refused<B: Body>(form: &Field, e: &serde_path_to_error::Error<serde_json::Error>) -> Error {
    let path = e.path().to_string();
    let top = path.split(['.', '[']).next().unwrap_or_default();
    let Some((name, field)) = form.properties.iter().find(|(n, _)| n == top) else {
        return Error::new(
            Code::InvalidField,
            "The request body does not match the schema of this endpoint.",
        );
    };
    let deep = B::DEEP_PARAMS.contains(&name.as_str());
    let items = B::ITEM_PARAMS.contains(&name.as_str());
    // A deep field's param is the path without item indices: `brand.colors[2]` is `brand.colors`.
    let deep_param: String = path.split('[').next().unwrap_or_default().to_string();
    let at = Place {
        path: &path,
        param: match (items, deep) {
            (true, _) => &path,
            (false, true) => &deep_param,
            (false, false) => name,
        },
        code: code_of::<B>(name),
        deep,
        items,
        strict: false,
    };
    if field.names.is_empty() || path != *name {
        return at.error(format!("`{path}` is not valid."));
    }
    at.error(format!(
        "`{path}` must be one of: {}.",
        field.names.join(", ")
    ))
}

fn code_of<B: Body>(name: &str) -> Code {
    B::CODES
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(Code::InvalidField, |(_, c)| *c)
}

/// What a body's schema says of its top-level fields: one form, or each form of a union.
#[derive(Debug)]
struct Shape {
    forms: Vec<Field>,
}

impl Shape {
    /// `B`'s shape, worked out from its schema once per type: a schema can be large (every time
    /// zone of `publish`), and it does not change while the program runs.
    fn cached<B: Body>() -> Arc<Shape> {
        static SHAPES: OnceLock<RwLock<HashMap<TypeId, Arc<Shape>>>> = OnceLock::new();
        let shapes = SHAPES.get_or_init(Default::default);
        let id = TypeId::of::<B>();
        if let Some(shape) = shapes.read().unwrap_or_else(|p| p.into_inner()).get(&id) {
            return shape.clone();
        }
        let shape = Arc::new(Shape::of::<B>());
        let mut all = shapes.write().unwrap_or_else(|p| p.into_inner());
        all.entry(id).or_insert(shape).clone()
    }

    fn of<B: ToSchema>() -> Shape {
        let mut components = Vec::new();
        B::schemas(&mut components);
        let components: Components = components.into_iter().collect();
        let forms = match B::schema() {
            RefOr::T(Schema::OneOf(u)) => u.items,
            RefOr::T(Schema::AnyOf(u)) => u.items,
            one => vec![one],
        };
        let forms = forms
            .iter()
            .map(|schema| {
                let mut form = Field::default();
                form.add(schema, &components, 0);
                form
            })
            .collect();
        Shape { forms }
    }

    /// The form `sent` is read as: the one [`Body::form`] names by a field it requires (among
    /// several that require it, the one whose enumeration for it lists the value sent: a
    /// discriminator), else the first whose required fields are all sent, else the first.
    fn form<B: Body>(&self, sent: &Map<String, Value>) -> Result<&Field> {
        if let [one] = self.forms.as_slice() {
            return Ok(one);
        }
        let requires = |form: &&Field, name: &str| form.required.iter().any(|r| r == name);
        let chosen = match B::form(sent)? {
            Some(key) => {
                let value = sent_as::<B>(sent, key).and_then(Value::as_str);
                let lists = |form: &&Field| {
                    let names = form.properties.iter().find(|(n, _)| n == key);
                    names.is_some_and(|(_, f)| {
                        f.names
                            .iter()
                            .any(|n| value.is_some_and(|v| n.eq_ignore_ascii_case(v)))
                    })
                };
                let mut requiring = self.forms.iter().filter(|f| requires(f, key));
                let first = requiring.clone().next();
                requiring.find(lists).or(first)
            }
            None => self
                .forms
                .iter()
                .find(|f| f.required.iter().all(|r| sent_as::<B>(sent, r).is_some()))
                .or(self.forms.first()),
        };
        chosen.ok_or_else(|| Error::internal("a body's form names a field no form requires"))
    }
}

/// How many `$ref`s and unions deep a schema is followed: a guard against a schema that refers
/// to itself. A form's field inside a union of `$ref`s (`adjust`'s `{"mode": …}`) is about ten.
const MAX_DEPTH: u8 = 16;

/// The named schemas a body's schema refers to.
type Components = HashMap<String, RefOr<Schema>>;

/// The JSON types one field takes, its names when it is an enumeration, and its own fields when
/// it is an object.
#[derive(Debug, Default, PartialEq)]
struct Field {
    types: Vec<String>,
    names: Vec<String>,
    /// The booleans it takes, when its schema lists them (`enum: [false]`, `const: false`).
    flags: Vec<bool>,
    properties: Vec<(String, Field)>,
    required: Vec<String>,
    /// No fields but `properties` (`additionalProperties: false`, serde's `deny_unknown_fields`).
    closed: bool,
    /// An array's items, and how many it may hold.
    items: Option<Box<Field>>,
    min_items: Option<usize>,
    max_items: Option<usize>,
}

/// Where a value sits: its path in messages (`channels.sms`), the `param` an error carries (the
/// top-level field, or the path itself inside a [`Body::DEEP_PARAMS`] field) and the code of
/// the top-level field.
struct Place<'a> {
    path: &'a str,
    param: &'a str,
    code: Code,
    deep: bool,
    /// Inside a [`Body::ITEM_PARAMS`] field: arrays are checked item by item, and errors name
    /// the place itself, indices included.
    items: bool,
    /// Arrays checked item by item and enumerations' names as listed, for a union whose serde
    /// refusal carries no path.
    strict: bool,
}

impl Place<'_> {
    fn error(&self, message: String) -> Error {
        Error::new(self.code, message).param(self.param)
    }
}

impl Field {
    /// Adds what `schema` says, through `$ref`s and unions; `null` is left out (absent and `null`
    /// are the same).
    fn add(&mut self, schema: &RefOr<Schema>, components: &Components, depth: u8) {
        if depth > MAX_DEPTH {
            return;
        }
        let schema = match schema {
            RefOr::Ref(r) => {
                let name = r.ref_location.rsplit('/').next().unwrap_or_default();
                if let Some(s) = components.get(name) {
                    self.add(s, components, depth + 1);
                }
                return;
            }
            RefOr::T(schema) => schema,
        };
        let branches = match schema {
            Schema::Object(o) => return self.add_object(o, components, depth),
            Schema::Array(a) => return self.add_array(a, components, depth),
            Schema::OneOf(u) => &u.items,
            Schema::AnyOf(u) => &u.items,
            Schema::AllOf(u) => &u.items,
            _ => return,
        };
        for branch in branches {
            self.add(branch, components, depth + 1);
        }
    }

    fn add_object(&mut self, o: &Object, components: &Components, depth: u8) {
        match &o.schema_type {
            SchemaType::Type(t) => self.take(t),
            SchemaType::Array(ts) => ts.iter().for_each(|t| self.take(t)),
            SchemaType::AnyValue => {}
        }
        let constant = o.extensions.as_ref().and_then(|e| e.get("const"));
        for name in o.enum_values.iter().flatten().chain(constant) {
            match name {
                Value::String(n) => self.names.push(n.to_string()),
                Value::Bool(b) => self.flags.push(*b),
                _ => {}
            }
        }
        for (name, property) in &o.properties {
            let mut field = Field::default();
            field.add(property, components, depth + 1);
            self.properties.push((name.clone(), field));
        }
        self.required.extend(o.required.iter().cloned());
        self.closed |= matches!(
            o.additional_properties.as_deref(),
            Some(AdditionalProperties::FreeForm(false))
        );
    }

    fn add_array(&mut self, a: &Array, components: &Components, depth: u8) {
        self.take(&Type::Array);
        self.min_items = a.min_items;
        self.max_items = a.max_items;
        if let ArrayItems::RefOrSchema(item) = &a.items {
            let mut field = Field::default();
            field.add(item, components, depth + 1);
            self.items = Some(Box::new(field));
        }
    }

    fn take(&mut self, t: &Type) {
        let name = match t {
            Type::String => "string",
            Type::Integer => "integer",
            Type::Number => "number",
            Type::Boolean => "boolean",
            Type::Object => "object",
            Type::Array => "array",
            _ => return,
        };
        if !self.types.iter().any(|have| have == name) {
            self.types.push(name.to_string());
        }
    }

    /// `value` as the field takes it: an integer for a whole number, the exact name for an
    /// enumeration matched regardless of case, an object's own fields checked in turn. Anything
    /// else is the place's code.
    fn check(&self, at: &Place, value: &Value) -> Result<Value> {
        let takes = |t: &str| self.types.iter().any(|have| have == t);
        match value {
            _ if self.types.is_empty() => Ok(value.clone()),
            Value::Number(n) if takes("integer") => match whole(n) {
                Some(i) => Ok(Value::from(i)),
                None if takes("number") && finite(n) => Ok(value.clone()),
                None => Err(self.wrong(at)),
            },
            Value::Number(n) if takes("number") && finite(n) => Ok(value.clone()),
            Value::String(s) if takes("string") && !self.names.is_empty() => self.named(at, s),
            Value::String(_) if takes("string") => Ok(value.clone()),
            Value::Bool(b) if takes("boolean") && !self.flags.is_empty() => self.flag(at, *b),
            Value::Bool(_) if takes("boolean") => Ok(value.clone()),
            Value::Object(o) if takes("object") => self.object(at, o),
            Value::Array(a) if takes("array") && (at.items || at.strict) => self.array(at, a),
            Value::Array(_) if takes("array") => Ok(value.clone()),
            _ => Err(self.wrong(at)),
        }
    }

    /// An array of an [`Body::ITEM_PARAMS`] field: its length within the schema's bounds, then
    /// each item checked in turn at `path[i]`.
    fn array(&self, at: &Place, sent: &[Value]) -> Result<Value> {
        let (min, max) = (
            self.min_items.unwrap_or(0),
            self.max_items.unwrap_or(usize::MAX),
        );
        if !(min..=max).contains(&sent.len()) {
            let most = self.max_items.map_or(String::new(), |m| format!(" to {m}"));
            return Err(at.error(format!("`{}` must hold {min}{most} items.", at.path)));
        }
        let Some(item) = &self.items else {
            return Ok(Value::Array(sent.to_vec()));
        };
        let mut clean = Vec::with_capacity(sent.len());
        for (i, value) in sent.iter().enumerate() {
            let path = format!("{}[{i}]", at.path);
            let inner = Place {
                path: &path,
                param: if at.items { &path } else { at.param },
                ..*at
            };
            clean.push(item.check(&inner, value)?);
        }
        Ok(Value::Array(clean))
    }

    /// An object's fields: those the schema names are checked (`null` dropped), others are
    /// refused when the object is closed and kept as sent otherwise.
    fn object(&self, at: &Place, sent: &Map<String, Value>) -> Result<Value> {
        if self.properties.is_empty() {
            return Ok(Value::Object(sent.clone()));
        }
        if at.items {
            self.required_in(at, sent)?;
        }
        let mut clean = Map::new();
        for (key, value) in sent.iter().filter(|(_, v)| !v.is_null()) {
            match self.properties.iter().find(|(n, _)| n == key) {
                Some((_, field)) => {
                    let path = format!("{}.{key}", at.path);
                    let inner = Place {
                        path: &path,
                        param: if at.deep || at.items { &path } else { at.param },
                        ..*at
                    };
                    clean.insert(key.clone(), field.check(&inner, value)?);
                }
                None if self.closed => {
                    let names: Vec<String> = self
                        .properties
                        .iter()
                        .map(|(n, _)| format!("`{n}`"))
                        .collect();
                    let error = at.error(format!(
                        "`{}` may hold only {}.",
                        at.path,
                        spoken_list(&names)
                    ));
                    // Inside a deep field the unknown key itself is the param.
                    return Err(if at.deep {
                        error.param(format!("{}.{key}", at.path))
                    } else {
                        error
                    });
                }
                None => {
                    clean.insert(key.clone(), value.clone());
                }
            }
        }
        Ok(Value::Object(clean))
    }

    /// Inside an [`Body::ITEM_PARAMS`] field, an object's required fields: absent, `null` or
    /// blank text is the place's code, naming the field (`scripts[0].text`).
    fn required_in(&self, at: &Place, sent: &Map<String, Value>) -> Result<()> {
        for name in &self.required {
            let given = sent
                .get(name)
                .filter(|v| !v.is_null() && v.as_str().is_none_or(|s| !s.trim().is_empty()));
            if given.is_none() {
                let path = format!("{}.{name}", at.path);
                return Err(Error::new(at.code, format!("`{path}` is required.")).param(path));
            }
        }
        Ok(())
    }

    /// The enumeration's own name for `sent`, matched regardless of case. A name it does not
    /// list goes to serde as sent, which takes the type's aliases or refuses it ([`refused`]);
    /// at a strict place it is refused here.
    fn named(&self, at: &Place, sent: &str) -> Result<Value> {
        let name = self
            .names
            .iter()
            .find(|n| *n == sent)
            .or_else(|| self.names.iter().find(|n| n.eq_ignore_ascii_case(sent)));
        match name {
            Some(n) => Ok(Value::String(n.clone())),
            None if at.strict => Err(at.error(format!(
                "`{}` must be one of: {}.",
                at.path,
                self.names.join(", ")
            ))),
            None => Ok(Value::String(sent.to_string())),
        }
    }

    /// A boolean the schema enumerates: only the values it lists.
    fn flag(&self, at: &Place, sent: bool) -> Result<Value> {
        match self.flags.contains(&sent) {
            true => Ok(Value::Bool(sent)),
            false => {
                let allowed: Vec<String> = self.flags.iter().map(bool::to_string).collect();
                Err(at.error(format!(
                    "`{}` can only be {} here.",
                    at.path,
                    allowed.join(" or ")
                )))
            }
        }
    }

    fn wrong(&self, at: &Place) -> Error {
        let expected: Vec<&str> = self
            .types
            .iter()
            .map(|t| match t.as_str() {
                "string" => "a string",
                "integer" => "an integer",
                "number" => "a number",
                "boolean" => "true or false",
                "object" => "an object",
                "array" => "an array",
                _ => "another type",
            })
            .collect();
        at.error(format!("`{}` must be {}.", at.path, expected.join(" or ")))
    }
}

/// `a`, `a and b`, `a, b and c`.
fn spoken_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The integer a JSON number holds, also when written with a zero fraction (as JSON Schema
/// counts `1500.0` an integer).
fn whole(n: &Number) -> Option<i64> {
    n.as_i64().or_else(|| {
        n.as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
            .map(|f| f as i64)
    })
}

fn finite(n: &Number) -> bool {
    n.as_f64().is_some_and(f64::is_finite)
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    /// A test enumeration.
    #[derive(Debug, Clone, Copy, PartialEq, Deserialize, ToSchema)]
    #[serde(rename_all = "lowercase")]
    enum Colour {
        Red,
        Blue,
    }

    /// A closed object of booleans.
    #[derive(Debug, Deserialize, ToSchema, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Switches {
        on: Option<bool>,
        loud: Option<bool>,
    }

    /// A body with one field of each kind.
    #[derive(Debug, Deserialize, ToSchema, PartialEq)]
    struct Sample {
        name: String,
        colour: Option<Colour>,
        limit: Option<i64>,
        scale: Option<f64>,
        flag: Option<bool>,
        #[schema(value_type = Option<Object>)]
        context: Option<Map<String, Value>>,
        switches: Option<Switches>,
    }

    impl Body for Sample {
        type Valid = Sample;
        const CODES: &'static [(&'static str, Code)] = &[
            ("colour", Code::InvalidKind),
            ("limit", Code::InvalidLimit),
            ("flag", Code::InvalidFaceless),
            ("switches", Code::InvalidChannels),
        ];
        fn validate(self) -> Result<Sample> {
            Ok(self)
        }
    }

    /// [`Sample`] whose `switches` name their own inner field as `param`.
    #[derive(Debug, Deserialize, ToSchema)]
    struct Deep {
        switches: Option<Switches>,
        tags: Option<Vec<String>>,
    }

    impl Body for Deep {
        type Valid = Deep;
        const CODES: &'static [(&'static str, Code)] = &[("switches", Code::InvalidChannels)];
        const DEEP_PARAMS: &'static [&'static str] = &["switches"];
        fn validate(self) -> Result<Deep> {
            Ok(self)
        }
    }

    #[test]
    fn a_deep_field_names_its_inner_field_as_param() {
        let ok = read::<Deep>(&json!({"switches": {"on": true}, "tags": ["a"]})).unwrap();
        assert_eq!(ok.switches.and_then(|s| s.on), Some(true));
        assert_eq!(ok.tags.unwrap(), ["a"]);
        let e = read::<Deep>(&json!({"switches": {"on": "yes"}})).unwrap_err();
        assert_eq!(e.code, Code::InvalidChannels);
        assert_eq!(e.param.as_deref(), Some("switches.on"));
        // The field itself, and any field not listed, are named as before.
        let e = read::<Deep>(&json!({"switches": {"colour": true}})).unwrap_err();
        assert_eq!(e.param.as_deref(), Some("switches.colour"));
        let e = read::<Deep>(&json!({"switches": 5})).unwrap_err();
        assert_eq!(e.param.as_deref(), Some("switches"));
        let e = read::<Deep>(&json!({"tags": [5]})).unwrap_err();
        assert_eq!(
            (e.code, e.param.as_deref()),
            (Code::InvalidField, Some("tags"))
        );
    }

    /// An item of [`Listed`].
    #[derive(Debug, Deserialize, ToSchema)]
    struct Entry {
        colour: Colour,
        label: String,
    }

    /// A body whose `entries` are checked item by item.
    #[derive(Debug, Deserialize, ToSchema)]
    struct Listed {
        #[schema(min_items = 1, max_items = 2)]
        entries: Option<Vec<Entry>>,
    }

    impl Body for Listed {
        type Valid = Listed;
        const CODES: &'static [(&'static str, Code)] = &[("entries", Code::InvalidScripts)];
        const ITEM_PARAMS: &'static [&'static str] = &["entries"];
        fn validate(self) -> Result<Listed> {
            Ok(self)
        }
    }

    #[test]
    fn an_item_field_names_the_item_and_its_field_as_param() {
        let ok = read::<Listed>(&json!({"entries": [{"colour": "RED", "label": "a"}]})).unwrap();
        let entry = &ok.entries.unwrap()[0];
        assert_eq!((entry.colour, entry.label.as_str()), (Colour::Red, "a"));
        let entry = json!({"colour": "red", "label": "a"});
        for (entries, param) in [
            (json!("x"), "entries"),
            (json!([]), "entries"),
            (json!([entry, entry, entry]), "entries"),
            (json!([entry, 5]), "entries[1]"),
            (json!([{"colour": "red"}]), "entries[0].label"),
            (json!([{"colour": "red", "label": " "}]), "entries[0].label"),
            (
                json!([{"colour": "green", "label": "a"}]),
                "entries[0].colour",
            ),
            (json!([{"colour": 3, "label": "a"}]), "entries[0].colour"),
        ] {
            let e = read::<Listed>(&json!({ "entries": entries })).unwrap_err();
            assert_eq!(
                (e.code, e.param.as_deref()),
                (Code::InvalidScripts, Some(param)),
                "{entries}"
            );
        }
    }

    fn refused(body: Value) -> (Code, Option<String>, String) {
        let e = read::<Sample>(&body).unwrap_err();
        (e.code, e.param, e.message)
    }

    #[test]
    fn a_valid_body_reads_with_nulls_as_absent_and_unknown_fields_ignored() {
        let s = read::<Sample>(&json!({
            "name": "x", "colour": null, "limit": 3, "scale": 1.5, "flag": true,
            "context": {"a": 1}, "other": [1, 2]
        }))
        .unwrap();
        assert_eq!(s.name, "x");
        assert_eq!(s.colour, None);
        assert_eq!((s.limit, s.scale, s.flag), (Some(3), Some(1.5), Some(true)));
        assert_eq!(s.context.unwrap()["a"], 1);
    }

    #[test]
    fn a_body_that_is_not_an_object_is_invalid_json() {
        for body in [json!([]), json!("x"), json!(null), json!(3)] {
            assert_eq!(refused(body).0, Code::InvalidJson);
        }
    }

    #[test]
    fn a_required_field_missing_null_or_blank_is_missing_field() {
        for body in [json!({}), json!({"name": null}), json!({"name": "  "})] {
            let (code, param, _) = refused(body);
            assert_eq!((code, param.as_deref()), (Code::MissingField, Some("name")));
        }
    }

    #[test]
    fn a_wrong_type_answers_with_the_fields_own_code_and_param() {
        let cases = [
            (
                json!({"name": 3}),
                Code::InvalidField,
                "name",
                "`name` must be a string.",
            ),
            (
                json!({"name": "x", "limit": "3"}),
                Code::InvalidLimit,
                "limit",
                "`limit` must be an integer.",
            ),
            (
                json!({"name": "x", "limit": 1.5}),
                Code::InvalidLimit,
                "limit",
                "`limit` must be an integer.",
            ),
            (
                json!({"name": "x", "flag": 1}),
                Code::InvalidFaceless,
                "flag",
                "`flag` must be true or false.",
            ),
            (
                json!({"name": "x", "scale": "1"}),
                Code::InvalidField,
                "scale",
                "`scale` must be a number.",
            ),
            (
                json!({"name": "x", "context": []}),
                Code::InvalidField,
                "context",
                "`context` must be an object.",
            ),
            (
                json!({"name": "x", "colour": 2}),
                Code::InvalidKind,
                "colour",
                "`colour` must be a string.",
            ),
        ];
        for (body, code, param, message) in cases {
            assert_eq!(
                refused(body),
                (code, Some(param.to_string()), message.to_string())
            );
        }
    }

    #[test]
    fn an_enumeration_matches_regardless_of_case_and_names_the_choices_otherwise() {
        let s = read::<Sample>(&json!({"name": "x", "colour": "BLUE"})).unwrap();
        assert_eq!(s.colour, Some(Colour::Blue));
        let (code, param, message) = refused(json!({"name": "x", "colour": "green"}));
        assert_eq!(
            (code, param.as_deref()),
            (Code::InvalidKind, Some("colour"))
        );
        assert_eq!(message, "`colour` must be one of: red, blue.");
    }

    #[test]
    fn a_closed_object_checks_its_own_fields_under_the_top_fields_code() {
        let s = read::<Sample>(&json!({"name": "x", "switches": {"on": true, "loud": null}}));
        assert_eq!(
            s.unwrap().switches,
            Some(Switches {
                on: Some(true),
                loud: None
            })
        );
        let (code, param, message) = refused(json!({"name": "x", "switches": {"on": 1}}));
        assert_eq!(
            (code, param.as_deref()),
            (Code::InvalidChannels, Some("switches"))
        );
        assert_eq!(message, "`switches.on` must be true or false.");
        let (code, _, message) = refused(json!({"name": "x", "switches": {"dim": true}}));
        assert_eq!(code, Code::InvalidChannels);
        assert_eq!(message, "`switches` may hold only `on` and `loud`.");
    }

    /// A form of [`Sent`] sent as text.
    #[derive(Debug, Deserialize, ToSchema, PartialEq)]
    struct AsText {
        text: String,
        colours: Option<Vec<Colour>>,
    }

    /// A form of [`Sent`] sent as a link.
    #[derive(Debug, Deserialize, ToSchema, PartialEq)]
    struct AsLink {
        link: String,
        limit: Option<i64>,
    }

    /// A union of two forms, told apart by the field each requires.
    #[derive(Debug, Deserialize, ToSchema, PartialEq)]
    #[serde(untagged)]
    enum Sent {
        Text(AsText),
        Link(AsLink),
    }

    impl Body for Sent {
        type Valid = Sent;
        const CODES: &'static [(&'static str, Code)] = &[
            ("colours", Code::InvalidKind),
            ("limit", Code::InvalidLimit),
        ];
        fn form(sent: &Map<String, Value>) -> Result<Option<&'static str>> {
            match (sent.contains_key("text"), sent.contains_key("link")) {
                (true, true) => Err(Error::new(Code::InvalidField, "one of").param("link")),
                (false, true) => Ok(Some("link")),
                _ => Ok(Some("text")),
            }
        }
        fn validate(self) -> Result<Sent> {
            Ok(self)
        }
    }

    #[test]
    fn a_union_reads_the_form_its_key_names_and_checks_that_forms_fields() {
        let text = read::<Sent>(&json!({"text": "a", "colours": ["RED"], "limit": "x"}));
        let expected = AsText {
            text: "a".into(),
            colours: Some(vec![Colour::Red]),
        };
        assert_eq!(text.unwrap(), Sent::Text(expected));
        let link = read::<Sent>(&json!({"link": "b", "limit": 2.0})).unwrap();
        let expected = AsLink {
            link: "b".into(),
            limit: Some(2),
        };
        assert_eq!(link, Sent::Link(expected));
        for (body, code, param) in [
            (json!({}), Code::MissingField, "text"),
            (json!({"text": " "}), Code::MissingField, "text"),
            (
                json!({"text": "a", "link": "b"}),
                Code::InvalidField,
                "link",
            ),
            (
                json!({"link": "b", "limit": "2"}),
                Code::InvalidLimit,
                "limit",
            ),
            // Serde refuses the name without a path; the strict check finds it.
            (
                json!({"text": "a", "colours": ["green"]}),
                Code::InvalidKind,
                "colours",
            ),
            (
                json!({"text": "a", "colours": [1]}),
                Code::InvalidKind,
                "colours",
            ),
        ] {
            let e = read::<Sent>(&body).unwrap_err();
            assert_eq!((e.code, e.param.as_deref()), (code, Some(param)), "{body}");
        }
    }

    /// `kind: small`: a form of [`Kinds`].
    #[derive(Debug, Deserialize, ToSchema, PartialEq)]
    struct Small {
        kind: SmallKind,
        size: Option<i64>,
    }

    /// The one name of [`Small`]'s `kind`.
    #[derive(Debug, Deserialize, ToSchema, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum SmallKind {
        Small,
    }

    /// `kind: large`: a form of [`Kinds`].
    #[derive(Debug, Deserialize, ToSchema, PartialEq)]
    struct Large {
        kind: LargeKind,
        size: Option<String>,
    }

    /// The one name of [`Large`]'s `kind`.
    #[derive(Debug, Deserialize, ToSchema, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum LargeKind {
        Large,
    }

    /// A union whose forms all require `kind`, told apart by its value.
    #[derive(Debug, Deserialize, ToSchema, PartialEq)]
    #[serde(untagged)]
    enum Kinds {
        Small(Small),
        Large(Large),
    }

    impl Body for Kinds {
        type Valid = Kinds;
        const CODES: &'static [(&'static str, Code)] = &[("size", Code::InvalidLimit)];
        fn form(_sent: &Map<String, Value>) -> Result<Option<&'static str>> {
            Ok(Some("kind"))
        }
        fn validate(self) -> Result<Kinds> {
            Ok(self)
        }
    }

    #[test]
    fn forms_that_require_the_same_field_are_told_apart_by_its_value() {
        let large = read::<Kinds>(&json!({"kind": "LARGE", "size": "xl"})).unwrap();
        let expected = Large {
            kind: LargeKind::Large,
            size: Some("xl".into()),
        };
        assert_eq!(large, Kinds::Large(expected));
        // Read as the small form, whose `size` is an integer.
        let e = read::<Kinds>(&json!({"kind": "small", "size": "xl"})).unwrap_err();
        assert_eq!(
            (e.code, e.param.as_deref()),
            (Code::InvalidLimit, Some("size"))
        );
    }

    #[test]
    fn a_whole_number_with_a_fraction_of_zero_is_an_integer() {
        let s = read::<Sample>(&json!({"name": "x", "limit": 1500.0})).unwrap();
        assert_eq!(s.limit, Some(1500));
    }

    /// A body that asks for `text` only after checking what was sent, and whose `loud` can only
    /// be `false`.
    #[derive(Debug, Deserialize, ToSchema)]
    struct Ordered {
        colour: Option<Colour>,
        text: String,
        #[schema(schema_with = only_false)]
        loud: Option<bool>,
    }

    fn only_false() -> utoipa::openapi::Object {
        let boolean = utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(SchemaType::Type(Type::Boolean))
            .build();
        crate::schema::constant(boolean, Value::Bool(false))
    }

    impl Body for Ordered {
        type Valid = Ordered;
        const CODES: &'static [(&'static str, Code)] = &[
            ("colour", Code::InvalidKind),
            ("loud", Code::InvalidFaceless),
        ];
        const REQUIRED_LAST: bool = true;
        fn validate(self) -> Result<Ordered> {
            Ok(self)
        }
    }

    #[test]
    fn a_body_that_asks_for_required_fields_last_names_a_wrong_value_first() {
        let e = read::<Ordered>(&json!({"colour": "green"})).unwrap_err();
        assert_eq!(
            (e.code, e.param.as_deref()),
            (Code::InvalidKind, Some("colour"))
        );
        let e = read::<Ordered>(&json!({"colour": "red", "text": " "})).unwrap_err();
        assert_eq!(
            (e.code, e.param.as_deref()),
            (Code::MissingField, Some("text"))
        );
        let ok = read::<Ordered>(&json!({"colour": "Red", "text": "t"})).unwrap();
        assert_eq!((ok.colour, ok.text.as_str()), (Some(Colour::Red), "t"));
        // Without the flag, what is missing comes first in the schema's order.
        let e = read::<Sample>(&json!({"colour": "green"})).unwrap_err();
        assert_eq!(
            (e.code, e.param.as_deref()),
            (Code::MissingField, Some("name"))
        );
    }

    #[test]
    fn a_boolean_the_schema_enumerates_takes_only_the_listed_values() {
        let ok = read::<Ordered>(&json!({"text": "t", "loud": false})).unwrap();
        assert_eq!(ok.loud, Some(false));
        let e = read::<Ordered>(&json!({"text": "t", "loud": true})).unwrap_err();
        assert_eq!(
            (e.code, e.param.as_deref()),
            (Code::InvalidFaceless, Some("loud"))
        );
        assert!(e.message.contains("only be false"), "{}", e.message);
    }
}
