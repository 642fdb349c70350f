//! The BERT encoder of all-MiniLM-L6-v2, for inference only, on candle tensors.
//!
//! Owns: the model config this code accepts, loading the encoder weights, and the forward pass
//! (token ids → one hidden vector per token). Does not own: tokenising, pooling or
//! normalising (`local.rs`), nor the weights' memory layout (`weights.rs`).
//!
//! Why not candle-transformers' `BertModel`: a sentence is embedded on every recall, so its
//! latency is a target (≤ 10 ms on one core), and a profile of that model showed two costs it
//! gives no way to avoid. GELU took ~15% of the time: candle computes it with scalar libm
//! `erff` calls, one per FFN activation (138k per 15-token sentence); here it is a polynomial
//! erf (Abramowitz & Stegun 7.1.28, |error| ≤ 3e-7, below f32 resolution next to 1) that the
//! compiler vectorises. And query, key and value are three matmuls there; here one over the
//! concatenated weights. Everything else is the same sequence of candle ops as `BertModel`
//! (same layer norms, softmax, residuals), so vectors match it to ~1e-6; the attention mask
//! is skipped when no row of the batch is padded (adding zeros changes nothing). Dropping the
//! candle-transformers crate also saves its build time.

use candle_core::{D, DType, Module, Result, Tensor};
use candle_nn::{Embedding, LayerNorm, Linear, VarBuilder, embedding, layer_norm, linear};
use serde::Deserialize;

/// The fields of a BERT `config.json` that this encoder uses.
#[derive(Debug, Clone, Deserialize)]
pub(super) struct Config {
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    pub hidden_act: String,
    pub max_position_embeddings: usize,
    pub type_vocab_size: usize,
    pub layer_norm_eps: f64,
}

impl Config {
    /// What this encoder implements: exact-erf GELU and heads that divide the width.
    pub(super) fn check(&self) -> std::result::Result<(), String> {
        if self.hidden_act != "gelu" {
            return Err(format!(
                "hidden_act {:?} is not supported (only \"gelu\")",
                self.hidden_act
            ));
        }
        if self.num_attention_heads == 0
            || !self.hidden_size.is_multiple_of(self.num_attention_heads)
        {
            return Err("attention heads do not divide the hidden size".into());
        }
        Ok(())
    }
}

struct Layer {
    /// Query, key and value in one: output columns [q | k | v].
    qkv: Linear,
    attention_out: Linear,
    attention_norm: LayerNorm,
    up: Linear,
    down: Linear,
    output_norm: LayerNorm,
}

pub(super) struct Encoder {
    words: Embedding,
    positions: Embedding,
    token_types: Embedding,
    embeddings_norm: LayerNorm,
    layers: Vec<Layer>,
    heads: usize,
    head_size: usize,
}

/// Stacks the query, key and value weights (and biases) into one linear layer, keeping the
/// column-major weight layout of `weights.rs` (a plain `cat` would make it row-major again).
fn fused_qkv(vb: VarBuilder, hidden: usize) -> Result<Linear> {
    let parts = ["query", "key", "value"]
        .iter()
        .map(|name| linear(hidden, hidden, vb.pp(name)))
        .collect::<Result<Vec<_>>>()?;
    let weights: Vec<&Tensor> = parts.iter().map(|l| l.weight()).collect();
    let weight = Tensor::cat(&weights, 0)?.t()?.contiguous()?.t()?;
    let biases = parts
        .iter()
        .map(|l| {
            l.bias()
                .cloned()
                .ok_or_else(|| candle_core::Error::Msg("attention layer without a bias".into()))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Linear::new(weight, Some(Tensor::cat(&biases, 0)?)))
}

impl Layer {
    fn load(vb: VarBuilder, c: &Config) -> Result<Layer> {
        let (hidden, inner) = (c.hidden_size, c.intermediate_size);
        let attention = vb.pp("attention");
        Ok(Layer {
            qkv: fused_qkv(attention.pp("self"), hidden)?,
            attention_out: linear(hidden, hidden, attention.pp("output").pp("dense"))?,
            attention_norm: layer_norm(
                hidden,
                c.layer_norm_eps,
                attention.pp("output").pp("LayerNorm"),
            )?,
            up: linear(hidden, inner, vb.pp("intermediate").pp("dense"))?,
            down: linear(inner, hidden, vb.pp("output").pp("dense"))?,
            output_norm: layer_norm(hidden, c.layer_norm_eps, vb.pp("output").pp("LayerNorm"))?,
        })
    }
}

/// erf by Abramowitz & Stegun 7.1.28: |error| ≤ 3e-7. Branch-free, so loops over it vectorise.
fn erf(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0
        + a * (0.070_523_08
            + a * (0.042_282_01
                + a * (0.009_270_527
                    + a * (0.000_152_014_3 + a * (0.000_276_567_2 + a * 0.000_043_063_8)))));
    let t2 = t * t;
    let t4 = t2 * t2;
    let t8 = t4 * t4;
    (1.0 - 1.0 / (t8 * t8)).copysign(x)
}

/// GELU with erf (the model's "gelu"), computed in place on a copy of the activations.
fn gelu(x: &Tensor) -> Result<Tensor> {
    let mut v = x.flatten_all()?.to_vec1::<f32>()?;
    for e in &mut v {
        *e = (erf(*e * std::f32::consts::FRAC_1_SQRT_2) + 1.0) * 0.5 * *e;
    }
    Tensor::from_vec(v, x.shape(), x.device())
}

impl Encoder {
    pub(super) fn load(vb: VarBuilder, c: &Config) -> Result<Encoder> {
        // Some exports prefix every name with "bert."; all-MiniLM-L6-v2's do not.
        let vb = if vb.contains_tensor("bert.embeddings.word_embeddings.weight") {
            vb.pp("bert")
        } else {
            vb
        };
        let e = vb.pp("embeddings");
        let layers = (0..c.num_hidden_layers)
            .map(|i| Layer::load(vb.pp("encoder").pp("layer").pp(i.to_string()), c))
            .collect::<Result<Vec<_>>>()?;
        Ok(Encoder {
            words: embedding(c.vocab_size, c.hidden_size, e.pp("word_embeddings"))?,
            positions: embedding(
                c.max_position_embeddings,
                c.hidden_size,
                e.pp("position_embeddings"),
            )?,
            token_types: embedding(
                c.type_vocab_size,
                c.hidden_size,
                e.pp("token_type_embeddings"),
            )?,
            embeddings_norm: layer_norm(c.hidden_size, c.layer_norm_eps, e.pp("LayerNorm"))?,
            layers,
            heads: c.num_attention_heads,
            head_size: c.hidden_size / c.num_attention_heads,
        })
    }

    /// `ids` and `mask` are (batch, seq) u32; `padded` says whether any mask value is 0.
    /// Returns (batch, seq, hidden).
    pub(super) fn forward(&self, ids: &Tensor, mask: &Tensor, padded: bool) -> Result<Tensor> {
        let (_, seq) = ids.dims2()?;
        if seq > self.positions.embeddings().dim(0)? {
            candle_core::bail!("{seq} tokens is more than the model's positions");
        }
        let types = ids.zeros_like()?;
        let positions = Tensor::arange(0u32, seq as u32, ids.device())?;
        let x = (self.words.forward(ids)? + self.token_types.forward(&types)?)?
            .broadcast_add(&self.positions.forward(&positions)?)?;
        let mut x = self.embeddings_norm.forward(&x)?;
        // (1 − mask) × f32::MIN, broadcast over heads and query positions, as BERT does.
        let bias = if padded {
            let m = mask.to_dtype(DType::F32)?.unsqueeze(1)?.unsqueeze(1)?;
            Some((m.ones_like()? - &m)?.affine(f64::from(f32::MIN), 0.0)?)
        } else {
            None
        };
        for layer in &self.layers {
            x = self.layer(layer, &x, bias.as_ref())?;
        }
        Ok(x)
    }

    fn layer(&self, l: &Layer, x: &Tensor, bias: Option<&Tensor>) -> Result<Tensor> {
        let (b, s, hidden) = x.dims3()?;
        // (b, s, 3 × hidden) → (3, b, heads, s, head_size), one copy for all three.
        let qkv = l
            .qkv
            .forward(x)?
            .reshape((b, s, 3, self.heads, self.head_size))?
            .permute((2, 0, 3, 1, 4))?
            .contiguous()?;
        let (q, k, v) = (qkv.get(0)?, qkv.get(1)?, qkv.get(2)?);
        let scores = q
            .matmul(&k.t()?)?
            .affine(1.0 / (self.head_size as f64).sqrt(), 0.0)?;
        let scores = match bias {
            Some(bias) => scores.broadcast_add(bias)?,
            None => scores,
        };
        let probs = candle_nn::ops::softmax(&scores, D::Minus1)?;
        let context = probs
            .matmul(&v)?
            .transpose(1, 2)?
            .contiguous()?
            .reshape((b, s, hidden))?;
        let attended = l
            .attention_norm
            .forward(&(l.attention_out.forward(&context)? + x)?)?;
        let inner = gelu(&l.up.forward(&attended)?)?;
        l.output_norm
            .forward(&(l.down.forward(&inner)? + &attended)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use candle_core::Device;

    #[test]
    fn gelu_matches_candles_libm_gelu() {
        let xs: Vec<f32> = (-40_000..=40_000).map(|i| i as f32 / 4_000.0).collect();
        let t = Tensor::from_vec(xs.clone(), xs.len(), &Device::Cpu).unwrap();
        let ours = gelu(&t).unwrap().to_vec1::<f32>().unwrap();
        let theirs = t.gelu_erf().unwrap().to_vec1::<f32>().unwrap();
        for ((x, a), b) in xs.iter().zip(&ours).zip(&theirs) {
            // 0.5·|x|·(3e-7 from the polynomial + f32 rounding on both sides).
            let bound = 4e-7 * x.abs().max(1.0);
            assert!((a - b).abs() <= bound, "gelu({x}): {a} vs {b}");
        }
    }

    #[test]
    fn erf_limits_and_symmetry() {
        assert_eq!(erf(0.0), 0.0);
        assert_eq!(erf(50.0), 1.0);
        assert_eq!(erf(-50.0), -1.0);
        assert_eq!(erf(f32::INFINITY), 1.0);
        assert!(erf(f32::NAN).is_nan());
        for x in [0.1f32, 0.5, 1.0, 2.5] {
            assert_eq!(erf(-x), -erf(x));
        }
        // erf(1) = 0.8427007929...
        assert!((erf(1.0) - 0.842_700_8).abs() < 3e-7);
    }
}
