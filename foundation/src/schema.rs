//! Hand-written request schemas: JSON Schema objects written as JSON, for the bodies whose
//! rules the `ToSchema` derive cannot say (one field's type depending on another's value,
//! exactly one of several fields).

use serde_json::Value;
use utoipa::openapi::extensions::Extensions;
use utoipa::openapi::schema::{Object, Schema};

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

/// `object` taking only `value`: utoipa's [`Object`] has no `const`, so it is carried through the
/// object's flattened extensions. [`Body`](crate::fields::Body) reads it back as an enumeration
/// of one value.
pub fn constant(mut object: Object, value: Value) -> Object {
    object
        .extensions
        .get_or_insert_with(Extensions::default)
        .insert("const".to_string(), value);
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

/// `$ref` to the component `name`.
pub fn reference(name: &str) -> Value {
    serde_json::json!({ "$ref": format!("#/components/schemas/{name}") })
}

/// The named components a hand-written schema refers to. An object inside a union that is
/// itself a property of a union's branch gets a name of its own: SDK generators name the
/// classes they make from it (`ObjectRectBoxed`, not `ModifySceneFieldsType1ItemType0ValueType1`),
/// and `openapi-python-client` cannot make a class of such an inline object at all.
#[derive(Debug, Default)]
pub struct Components(Vec<(String, Value)>);

impl Components {
    /// Keeps `schema` as the component `name` and answers a `$ref` to it; a name given twice
    /// keeps its first schema (the same rule built twice).
    pub fn named(&mut self, name: &str, schema: Value) -> Value {
        if !self.0.iter().any(|(n, _)| n == name) {
            self.0.push((name.to_string(), schema));
        }
        reference(name)
    }

    /// Adds every component, as written, to utoipa's list.
    pub fn add_to(self, schemas: &mut Vec<(String, utoipa::openapi::RefOr<Schema>)>) {
        schemas.extend(self.0.into_iter().map(|(n, s)| (n, raw(s))));
    }
}

/// A schema that takes exactly `values`, which may mix JSON types (`[true, null, "toggle"]`):
/// one typed branch per type, a `const` per boolean, since an `enum` of mixed types gives a
/// generated client no type to declare.
pub fn any_of_values(values: &[Value]) -> Value {
    let mut branches: Vec<Value> = Vec::new();
    let mut typed = |name: &str, of: &dyn Fn(&Value) -> bool| {
        let same: Vec<&Value> = values.iter().filter(|v| of(v)).collect();
        if !same.is_empty() {
            branches.push(serde_json::json!({ "type": name, "enum": same }));
        }
    };
    typed("string", &Value::is_string);
    typed("integer", &|v| v.is_i64() || v.is_u64());
    typed("number", &Value::is_f64);
    branches.extend(
        values
            .iter()
            .filter_map(Value::as_bool)
            .map(|b| serde_json::json!({ "type": "boolean", "const": b })),
    );
    if values.iter().any(Value::is_null) {
        branches.push(serde_json::json!({ "type": "null" }));
    }
    match branches.len() {
        1 => branches.remove(0),
        _ => serde_json::json!({ "anyOf": branches }),
    }
}

/// A schema `title` made of a wire name (`video_url`, `remotion.object.rect`, `mediaUrl`):
/// `VideoUrl`, `RemotionObjectRect`, `MediaUrl`. A generated client names the class of a union's
/// branch by its title instead of its position, so a title is a whole class name, unique in the
/// document (`CreateVideoVideoUrl`, not `CreateVideoRequestType3`).
pub fn title(wire_name: &str) -> String {
    wire_name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|first| first.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_title_is_the_wire_name_in_camel_case() {
        assert_eq!(title("video_url"), "VideoUrl");
        assert_eq!(title("remotion.object.rect"), "RemotionObjectRect");
        assert_eq!(title("mediaUrl"), "MediaUrl");
    }

    #[test]
    fn mixed_values_become_one_typed_branch_per_type() {
        let s = any_of_values(&[json!(true), json!(null), json!("a"), json!(1), json!("b")]);
        assert_eq!(
            s,
            json!({ "anyOf": [
                { "type": "string", "enum": ["a", "b"] },
                { "type": "integer", "enum": [1] },
                { "type": "boolean", "const": true },
                { "type": "null" },
            ]})
        );
        assert_eq!(
            any_of_values(&[json!("x")]),
            json!({ "type": "string", "enum": ["x"] })
        );
    }

    #[test]
    fn a_component_named_twice_keeps_its_first_schema() {
        let mut c = Components::default();
        let r = c.named("A", json!({ "type": "string" }));
        c.named("A", json!({ "type": "number" }));
        assert_eq!(r, json!({ "$ref": "#/components/schemas/A" }));
        let mut out = Vec::new();
        c.add_to(&mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(
            serde_json::to_value(&out[0].1).unwrap(),
            json!({ "type": "string" })
        );
    }
}
