//! Relevance that a person can read, and the floor under which a recalled row is not listed.
//!
//! Owns: the per-model similarity floors (measured, see below), the `SimilarityFloor` knob and
//! the `Strength` label shown next to a hit. Does not own: ranking (`fusion`, rank-based, so
//! its scores say nothing about how well a row matches) or the searches (the store).
//!
//! Why a floor on cosine similarity: fusion scores are 1/(k + rank), so the fifth-best row of
//! an unrelated question scores like the fifth-best of a good one, and the vector list always
//! returns its nearest rows, however far. The cosine of query and row vectors does measure
//! closeness, but its scale is the model's: a floor is set only for a model it was measured
//! on. Two floors: a lower one for a row that shares a content word with the query (keyword
//! questions — names, codes, model numbers — are exactly those whose vectors are far apart),
//! and a row that the full-text list brought into the fusion is kept whatever its cosine.
//!
//! How the local model's floors were chosen (tests/retrieval_eval.rs,
//! `the_similarity_floor_keeps_every_relevant_hit`, from the tuning queries only): the lowest
//! cosine of a relevant row in hybrid recall's top 5 is 0.254 for a row sharing no word with
//! the question and 0.210 for one that shares a word; each floor is that minus a 0.02 margin,
//! rounded down (0.23, 0.19). On the held-out queries, not used to choose them, no relevant
//! row is lost (lowest 0.232 and 0.216; recall@5 and MRR unchanged, asserted there). Vectors
//! alone (`RecallMode::Vector`, used by no caller) know no shared words, so there the higher
//! floor drops a few keyword hits (held-out recall@5 0.954 → 0.940). What they buy: on 40 questions
//! about nothing the notes mention (tests/fixtures/retrieval_unrelated.json), hybrid recall
//! lists 49 rows instead of 200, and nothing at all for 20 of them. They cannot do better
//! without losing relevant rows: MiniLM gives some unrelated pairs (a printing press and a
//! printer, the Sistine Chapel and a paint note) more similarity (up to 0.40) than some
//! relevant ones. A higher floor is a trade-off the owner can make
//! (`memory.min_similarity_percent`).

/// Which similarity a vector hit must reach to be listed (see the module header).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum SimilarityFloor {
    /// The floors measured for the embedding model in use; none for a model that was not
    /// measured (its cosine scale is unknown).
    #[default]
    ForModel,
    /// List every hit (the retrieval evaluation measures with this).
    Off,
    /// This cosine similarity, for any model and any row found by its vector.
    At(f64),
}

/// The cosine similarity a row found by its vector needs in order to be listed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Floors {
    /// A row that shares no content word with the query.
    pub vector_only: f64,
    /// A row that shares a content word with the query (in the full-text candidates), but
    /// that the full-text list did not bring into the fusion.
    pub sharing_words: f64,
}

/// The local MiniLM's floors (see the module header for how they were measured).
pub const LOCAL_MINILM_FLOORS: Floors = Floors {
    vector_only: 0.23,
    sharing_words: 0.19,
};

/// The model id the local MiniLM stores its vectors under (`embed::LOCAL_MODEL_ID`, which
/// exists only with the `local-embed` feature).
const LOCAL_MINILM_ID: &str = "local:all-MiniLM-L6-v2";

impl SimilarityFloor {
    /// The floors for vectors of `model_id`, if any.
    pub fn for_model(self, model_id: &str) -> Option<Floors> {
        match self {
            SimilarityFloor::ForModel => measured_floors(model_id),
            SimilarityFloor::Off => None,
            SimilarityFloor::At(f) => Some(Floors {
                vector_only: f,
                sharing_words: f,
            }),
        }
    }
}

/// The measured floors of a model, if it was measured.
pub fn measured_floors(model_id: &str) -> Option<Floors> {
    (model_id == LOCAL_MINILM_ID).then_some(LOCAL_MINILM_FLOORS)
}

/// How well a hit matches, in words. Bands measured on the retrieval fixture's top-5 rows
/// with the local model: at 0.5 and above about nine rows in ten are the ones asked about,
/// 0.4 to 0.5 about four in ten, below 0.4 fewer than two in ten.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strength {
    Strong,
    Possible,
    Weak,
    /// Found by its words; no vector similarity is known.
    Words,
    /// A similarity from a model whose scale was not measured: shown as a number only.
    Unrated,
}

impl Strength {
    /// The strength of a hit with this `similarity`, from vectors of `model_id`.
    pub fn of(similarity: Option<f64>, model_id: Option<&str>) -> Strength {
        let measured = model_id.is_some_and(|m| measured_floors(m).is_some());
        match similarity {
            None => Strength::Words,
            Some(_) if !measured => Strength::Unrated,
            Some(s) if s >= 0.5 => Strength::Strong,
            Some(s) if s >= 0.4 => Strength::Possible,
            Some(_) => Strength::Weak,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Strength::Strong => "strong",
            Strength::Possible => "possible",
            Strength::Weak => "weak",
            Strength::Words => "words",
            Strength::Unrated => "unrated",
        }
    }
}

/// A cosine similarity as a whole percentage, clamped to 0..=100 (a negative cosine is
/// "nothing in common", not less than nothing).
pub fn percent(similarity: f64) -> u8 {
    (similarity.clamp(0.0, 1.0) * 100.0).round() as u8
}

/// One hit's relevance for a person: "strong match (61% similar)", "61% similar" (a model
/// whose scale was not measured) or "matched by words".
pub fn describe(similarity: Option<f64>, model_id: Option<&str>) -> String {
    match (Strength::of(similarity, model_id), similarity) {
        (Strength::Words, _) | (_, None) => "matched by words".to_owned(),
        (Strength::Unrated, Some(s)) => format!("{}% similar", percent(s)),
        (strength, Some(s)) => format!("{} match ({}% similar)", strength.as_str(), percent(s)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floors_are_set_only_for_a_measured_model() {
        assert_eq!(
            SimilarityFloor::ForModel.for_model(LOCAL_MINILM_ID),
            Some(LOCAL_MINILM_FLOORS)
        );
        assert_eq!(
            SimilarityFloor::ForModel.for_model("openai:text-embedding-3-small"),
            None
        );
        assert_eq!(SimilarityFloor::Off.for_model(LOCAL_MINILM_ID), None);
        let at = SimilarityFloor::At(0.4).for_model("x").unwrap();
        assert_eq!((at.vector_only, at.sharing_words), (0.4, 0.4));
    }

    #[cfg(feature = "local-embed")]
    #[test]
    fn the_floor_names_the_local_models_id() {
        assert_eq!(LOCAL_MINILM_ID, crate::embed::LOCAL_MODEL_ID);
    }

    #[test]
    fn strengths_and_percentages() {
        let local = Some(LOCAL_MINILM_ID);
        assert_eq!(Strength::of(Some(0.72), local), Strength::Strong);
        assert_eq!(Strength::of(Some(0.5), local), Strength::Strong);
        assert_eq!(Strength::of(Some(0.45), local), Strength::Possible);
        assert_eq!(Strength::of(Some(0.3), local), Strength::Weak);
        assert_eq!(Strength::of(None, local), Strength::Words);
        assert_eq!(
            Strength::of(Some(0.9), Some("openai:text-embedding-3-small")),
            Strength::Unrated
        );
        assert_eq!(percent(0.724), 72);
        assert_eq!(percent(-0.2), 0);
        assert_eq!(percent(1.3), 100);
        assert_eq!(describe(Some(0.614), local), "strong match (61% similar)");
        assert_eq!(describe(Some(0.3), None), "30% similar");
        assert_eq!(describe(None, local), "matched by words");
    }
}
