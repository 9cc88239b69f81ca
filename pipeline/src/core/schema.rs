//! Hand-written request schemas: JSON Schema objects written as JSON, for the bodies whose
//! rules the `ToSchema` derive cannot say (one field's type depending on another's value,
//! exactly one of several fields).

use serde_json::Value;
use utoipa::openapi::extensions::Extensions;
use utoipa::openapi::schema::Object;

/// An object schema from its JSON. utoipa's [`Object`] has no `not`, so a `not` in `json` is
/// carried through the object's flattened extensions, which serialize it back unchanged.
pub fn object(mut json: Value) -> Object {
    let not = json.as_object_mut().and_then(|o| o.remove("not"));
    let mut object: Object =
        serde_json::from_value(json).expect("a hand-written schema is a valid schema object");
    if let Some(not) = not {
        object
            .extensions
            .get_or_insert_with(Extensions::default)
            .insert("not".to_string(), not);
    }
    object
}

/// `not` of a schema: none of `names` is present.
pub fn none_of(names: &[&str]) -> Value {
    let present: Vec<Value> = names
        .iter()
        .map(|n| serde_json::json!({ "required": [n] }))
        .collect();
    serde_json::json!({ "anyOf": present })
}

/// Any schema from its JSON, kept exactly as written: an untyped [`Object`] whose flattened
/// extensions carry every keyword (utoipa's types cannot say `contains`, `not`, `const`, …).
pub fn raw(json: Value) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    let Value::Object(keywords) = json else {
        panic!("a hand-written schema is a JSON object");
    };
    let mut object = Object::default();
    object.schema_type = utoipa::openapi::schema::SchemaType::AnyValue;
    object.extensions = Some(keywords.into_iter().collect());
    utoipa::openapi::RefOr::T(utoipa::openapi::schema::Schema::Object(object))
}
