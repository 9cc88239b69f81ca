//! What the `ToSchema` derive cannot say: a `const`, carried through extensions.

use serde_json::Value;
use utoipa::openapi::extensions::Extensions;
use utoipa::openapi::schema::Object;

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
