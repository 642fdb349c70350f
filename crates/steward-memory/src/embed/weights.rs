//! Weight loading for the local model, with linear layers stored column-major.
//!
//! Owns: the layout of the weights in memory. Does not own: the model or its maths.
//!
//! Why: candle's `Linear` computes `x · Wᵀ`, and gemm re-packs the weight operand on every call
//! when W is row-major (as safetensors stores it). For the short inputs that dominate here
//! (one sentence ≈ 15 tokens) that repacking of the whole weight matrix costs about as much as
//! the multiplication itself. Storing each linear weight column-major (same logical shape,
//! transposed memory) makes `Wᵀ` contiguous, so the packing becomes a plain copy.

use candle_core::safetensors::BufferedSafetensors;
use candle_core::{DType, Device, Result, Shape, Tensor};
use candle_nn::Init;
use candle_nn::var_builder::SimpleBackend;

/// Safetensors held in memory, handing out linear weights column-major.
pub(super) struct ColumnMajorLinears(pub(super) BufferedSafetensors);

/// Token, position and type embeddings are looked up by row, so they stay row-major; every
/// other 2-D tensor in BERT is a linear weight.
fn relayout(name: &str, t: Tensor) -> Result<Tensor> {
    if t.rank() == 2 && !name.contains("embeddings") {
        t.t()?.contiguous()?.t()
    } else {
        Ok(t)
    }
}

impl SimpleBackend for ColumnMajorLinears {
    fn get(&self, s: Shape, name: &str, h: Init, dtype: DType, dev: &Device) -> Result<Tensor> {
        relayout(name, SimpleBackend::get(&self.0, s, name, h, dtype, dev)?)
    }

    fn get_unchecked(&self, name: &str, dtype: DType, dev: &Device) -> Result<Tensor> {
        relayout(
            name,
            SimpleBackend::get_unchecked(&self.0, name, dtype, dev)?,
        )
    }

    fn contains_tensor(&self, name: &str) -> bool {
        SimpleBackend::contains_tensor(&self.0, name)
    }
}
