//! What the `ToSchema` derive cannot say: a `const` (carried through extensions), and the few
//! schemas still written as JSON (`edit_session`'s overlapping reply states, a channel group's
//! echo) with the named components they refer to.

use serde_json::Value;
use utoipa::openapi::extensions::Extensions;
use utoipa::openapi::schema::{Object, Schema};

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
/// classes they make from it (`EditSessionStarted`, not `EditSessionReplyType1`), and
/// `openapi-python-client` cannot make a class of such an inline object at all.
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
