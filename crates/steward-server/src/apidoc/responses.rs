//! The error responses many routes share, as document components (`#/components/responses`):
//! each one the status, the error shape of its API flavour and the headers `ApiError` and the
//! auth layer send with it. A route's own errors (a 404 naming what is missing, a 409) are
//! written in its annotation instead.
//!
//! Owns: how those shared answers are described. Does not own: the answers themselves
//! (`error.rs`, `auth.rs`).

use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::{Content, Header, Ref, RefOr, Response, ResponseBuilder};

/// A string header with its description.
fn header(description: &str) -> Header {
    let mut h = Header::new(ObjectBuilder::new().schema_type(Type::String));
    h.description = Some(description.to_owned());
    h
}

/// An error response: `schema` is the body's component name; every error says
/// `x-should-retry`.
fn error(description: &str, schema: &str, headers: &[(&str, &str)]) -> Response {
    let mut b = ResponseBuilder::new()
        .description(description)
        .content(
            "application/json",
            Content::new(Some(Ref::from_schema_name(schema))),
        )
        .header(
            "x-should-retry",
            header("`true` when sending the same request again can help, else `false`"),
        );
    for (name, description) in headers {
        b = b.header(*name, header(description));
    }
    b.build()
}

macro_rules! shared_error {
    ($(#[$doc:meta])* $name:ident, $schema:literal, $description:literal $(, $h:literal = $hd:expr)* $(,)?) => {
        $(#[$doc])*
        pub(crate) struct $name;

        impl<'r> utoipa::ToResponse<'r> for $name {
            fn response() -> (&'r str, RefOr<Response>) {
                (stringify!($name), error($description, $schema, &[$(($h, $hd)),*]).into())
            }
        }
    };
}

const WWW_AUTHENTICATE: &str = "`Bearer`: the scheme to authenticate with";

shared_error!(
    BadRequest,
    "ErrorBody",
    "Malformed input: JSON that does not parse, an invalid id, parameter or value (`kind` \
     `bad_request`); the message names what to fix"
);
shared_error!(
    /// Checked before anything else, on every `/api/`, `/v1/` and `/mcp` path (known or not).
    Unauthorized,
    "ErrorBody",
    "No valid credential: the bearer token (or, on `/api/`, the sign-in cookie) is missing \
     or wrong (`kind` `unauthorized`)",
    "WWW-Authenticate" = WWW_AUTHENTICATE,
);
shared_error!(NotFound, "ErrorBody", "No such thing (`kind` `not_found`)");
shared_error!(
    PayloadTooLarge,
    "ErrorBody",
    "The body is over the server's body limit (`http.max_body_bytes`), or a value in it over \
     its own limit (`kind` `payload_too_large`)"
);
shared_error!(
    UnsupportedMediaType,
    "ErrorBody",
    "A body that is not `Content-Type: application/json` (`kind` `unsupported_media_type`)"
);
shared_error!(
    InvalidRequest,
    "ErrorBody",
    "JSON of the wrong shape (`kind` `invalid_request`), or a value the store or the gate \
     refused (`kind` `invalid`)"
);
shared_error!(
    /// For routes that limit attempts (sign-in).
    TooManyRequests,
    "ErrorBody",
    "Too many attempts from this client; wait as `Retry-After` says",
    "Retry-After" = "Seconds to wait before trying again",
);
shared_error!(
    Internal,
    "ErrorBody",
    "Steward failed (storage, an encoding); details are in the server log (`kind` `internal`)"
);
shared_error!(
    Unavailable,
    "ErrorBody",
    "This part of Steward is not enabled in this server (`kind` `unavailable`)"
);
shared_error!(
    OpenAiBadRequest,
    "OpenAiErrorBody",
    "Malformed input, or a field Steward does not support (named in the message)"
);
shared_error!(
    OpenAiUnauthorized,
    "OpenAiErrorBody",
    "The bearer token is missing or wrong",
    "WWW-Authenticate" = WWW_AUTHENTICATE,
);
shared_error!(
    OpenAiPayloadTooLarge,
    "OpenAiErrorBody",
    "The body or the message is over its limit"
);
shared_error!(
    OpenAiUnsupportedMediaType,
    "OpenAiErrorBody",
    "A body that is not `Content-Type: application/json`"
);
shared_error!(
    OpenAiInvalidRequest,
    "OpenAiErrorBody",
    "JSON of the wrong shape, or a message the model cannot take (`unsupported`, `model_rejected`)"
);
