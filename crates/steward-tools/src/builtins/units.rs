//! `unit_convert`: a deliberately small unit table (length, mass, temperature, volume).
//! Owns unit names, aliases and factors. Does not own currency or anything time-varying.

use super::{format_number, num_arg, quoted};
use crate::args::str_arg;
use crate::{OutputTrust, Tool, ToolContext, ToolError};
use serde_json::{Value, json};
use steward_protocol::Effect;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dim {
    Length,
    Mass,
    Temperature,
    Volume,
}

impl Dim {
    fn as_str(self) -> &'static str {
        match self {
            Dim::Length => "length",
            Dim::Mass => "mass",
            Dim::Temperature => "temperature",
            Dim::Volume => "volume",
        }
    }
}

struct Unit {
    symbol: &'static str,
    dim: Dim,
    /// Size in the dimension's base unit (m, kg, l). Unused for temperature.
    factor: f64,
    /// Lower-case spellings accepted besides the symbol.
    aliases: &'static [&'static str],
}

const fn unit(
    symbol: &'static str,
    dim: Dim,
    factor: f64,
    aliases: &'static [&'static str],
) -> Unit {
    Unit {
        symbol,
        dim,
        factor,
        aliases,
    }
}

/// Exact legal definitions (international yard and pound; US liquid gallon and cup).
const UNITS: &[Unit] = &[
    unit(
        "m",
        Dim::Length,
        1.0,
        &["meter", "meters", "metre", "metres"],
    ),
    unit(
        "km",
        Dim::Length,
        1000.0,
        &["kilometer", "kilometers", "kilometre", "kilometres"],
    ),
    unit(
        "cm",
        Dim::Length,
        0.01,
        &["centimeter", "centimeters", "centimetre", "centimetres"],
    ),
    unit(
        "mm",
        Dim::Length,
        0.001,
        &["millimeter", "millimeters", "millimetre", "millimetres"],
    ),
    unit("mi", Dim::Length, 1609.344, &["mile", "miles"]),
    unit("ft", Dim::Length, 0.3048, &["foot", "feet"]),
    unit("in", Dim::Length, 0.0254, &["inch", "inches"]),
    unit("yd", Dim::Length, 0.9144, &["yard", "yards"]),
    unit(
        "kg",
        Dim::Mass,
        1.0,
        &["kilogram", "kilograms", "kilo", "kilos"],
    ),
    unit("g", Dim::Mass, 0.001, &["gram", "grams"]),
    unit("lb", Dim::Mass, 0.453_592_37, &["lbs", "pound", "pounds"]),
    unit("oz", Dim::Mass, 0.028_349_523_125, &["ounce", "ounces"]),
    unit("C", Dim::Temperature, 1.0, &["°c", "celsius"]),
    unit("F", Dim::Temperature, 1.0, &["°f", "fahrenheit"]),
    unit("K", Dim::Temperature, 1.0, &["kelvin"]),
    unit(
        "l",
        Dim::Volume,
        1.0,
        &["liter", "liters", "litre", "litres"],
    ),
    unit(
        "ml",
        Dim::Volume,
        0.001,
        &["milliliter", "milliliters", "millilitre", "millilitres"],
    ),
    unit("gal", Dim::Volume, 3.785_411_784, &["gallon", "gallons"]),
    unit("cup", Dim::Volume, 0.236_588_236_5, &["cups"]),
];

fn find_unit(raw: &str) -> Result<&'static Unit, ToolError> {
    let key = raw.trim().to_lowercase();
    UNITS
        .iter()
        .find(|u| u.symbol.eq_ignore_ascii_case(&key) || u.aliases.contains(&key.as_str()))
        .ok_or_else(|| {
            let known: Vec<&str> = UNITS.iter().map(|u| u.symbol).collect();
            ToolError::InvalidArguments(format!(
                "unknown unit {}; supported: {}",
                quoted(raw),
                known.join(" ")
            ))
        })
}

fn to_kelvin(symbol: &str, x: f64) -> f64 {
    match symbol {
        "C" => x + 273.15,
        "F" => (x - 32.0) * 5.0 / 9.0 + 273.15,
        _ => x,
    }
}

fn from_kelvin(symbol: &str, k: f64) -> f64 {
    match symbol {
        "C" => k - 273.15,
        "F" => (k - 273.15) * 9.0 / 5.0 + 32.0,
        _ => k,
    }
}

/// Convert and phrase the answer, e.g. "10 km = 6.21371192237334 mi".
pub(crate) fn convert(value: f64, from: &str, to: &str) -> Result<String, ToolError> {
    let (from, to) = (find_unit(from)?, find_unit(to)?);
    if from.dim != to.dim {
        return Err(ToolError::InvalidArguments(format!(
            "cannot convert {} ({}) to {} ({})",
            from.symbol,
            from.dim.as_str(),
            to.symbol,
            to.dim.as_str()
        )));
    }
    let result = if from.dim == Dim::Temperature {
        let kelvin = to_kelvin(from.symbol, value);
        if kelvin < 0.0 {
            return Err(ToolError::InvalidArguments(format!(
                "{} {} is below absolute zero",
                format_number(value),
                from.symbol
            )));
        }
        from_kelvin(to.symbol, kelvin)
    } else {
        value * from.factor / to.factor
    };
    if !result.is_finite() {
        return Err(ToolError::Failed("the result is too large".into()));
    }
    Ok(format!(
        "{} {} = {} {}",
        format_number(value),
        from.symbol,
        format_number(result),
        to.symbol
    ))
}

pub struct UnitConvert;

#[async_trait::async_trait]
impl Tool for UnitConvert {
    fn name(&self) -> &str {
        "unit_convert"
    }
    fn description(&self) -> &str {
        "Convert units: m km cm mm mi ft in yd | kg g lb oz | C F K | l ml gal cup (US)."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "value": {"type": "number"},
                "from": {"type": "string", "maxLength": 16},
                "to": {"type": "string", "maxLength": 16}
            },
            "required": ["value", "from", "to"],
            "additionalProperties": false
        })
    }
    fn effect(&self) -> Effect {
        Effect::Read
    }

    fn output_trust(&self) -> OutputTrust {
        OutputTrust::Trusted
    }
    async fn run(&self, args: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        convert(
            num_arg(&args, "value")?,
            str_arg(&args, "from")?,
            str_arg(&args, "to")?,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_and_case_resolve_to_one_unit() {
        for raw in ["km", "KM", " kilometres ", "Kilometer"] {
            assert_eq!(find_unit(raw).unwrap().symbol, "km", "{raw}");
        }
        assert_eq!(find_unit("°C").unwrap().symbol, "C");
        assert_eq!(find_unit("k").unwrap().symbol, "K");
        assert!(find_unit("parsec").is_err());
    }

    #[test]
    fn every_unit_converts_to_itself() {
        for u in UNITS {
            let out = convert(12.5, u.symbol, u.symbol).unwrap();
            assert_eq!(out, format!("12.5 {0} = 12.5 {0}", u.symbol));
        }
    }
}
