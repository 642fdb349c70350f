//! steward-llm (in progress)
