//! Integration tests: the real router served on 127.0.0.1 via `serve`, driven by reqwest,
//! with a scripted fake `Assistant` standing in for the agent.

mod api;
mod auth;
mod hostile;
mod openai;
mod openai_stream;
mod shutdown;
mod support;
