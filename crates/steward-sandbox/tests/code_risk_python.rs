//! Dynamic code in Python on the `run_code` card: each way of running, importing, looking
//! up or decoding code chosen at run time is rated at least medium with its reason shown,
//! however it is spelled; decoding and running together is high; ordinary code stays low.

use proptest::prelude::*;
use steward_sandbox::risk::{Risk, assess_python};

#[test]
fn dynamic_code_is_at_least_medium_with_its_reason() {
    // (code, a phrase the reasons must contain)
    let cases: &[(&str, &str)] = &[
        ("exec(src)", "runs code built at run time (exec)"),
        ("eval(expr)", "runs code built at run time (eval)"),
        ("eval ( expr )", "runs code built at run time (eval)"),
        ("x = eval\t(\n  expr)", "(eval)"),
        (
            "code = compile(src, 'f', 'exec')",
            "compiles code built at run time (compile)",
        ),
        (
            "m = __import__(name)",
            "imports a module chosen at run time (__import__)",
        ),
        (
            "import importlib\nm = importlib.import_module(name)",
            "imports a module chosen at run time (importlib.import_module)",
        ),
        (
            "from importlib import import_module as im\nim('os')",
            "(importlib.import_module)",
        ),
        (
            "import importlib.util\nspec = importlib.util.spec_from_file_location('m', p)",
            "loads a module from a file (importlib.util.spec_from_file_location)",
        ),
        (
            "import runpy\nrunpy.run_path('x.py')",
            "runs a module or file as code (runpy.run_path)",
        ),
        (
            "v = getattr(obj, name)",
            "getattr with a computed attribute name",
        ),
        (
            "v = getattr(obj, 'a' + suffix)",
            "getattr with a computed attribute name",
        ),
        (
            "v = getattr(obj, f'{n}')",
            "getattr with a computed attribute name",
        ),
        (
            "setattr(obj, key, 1)",
            "setattr with a computed attribute name",
        ),
        ("g = getattr\ng(obj, n)", "getattr passed around"),
        ("f = getattr(builtins, 'eval')", "spells `eval` in a string"),
        (
            "__builtins__.__dict__['ex'+'ec']('1')",
            "spells `exec` in a string",
        ),
        (
            "__builtins__.__dict__['ex'+'ec']('1')",
            "looks up names by key (__builtins__.__dict__[…])",
        ),
        (
            "__builtins__['eval']('1')",
            "looks up names by key (__builtins__[…])",
        ),
        (
            "f = globals()['__builtins__']",
            "looks up names by key (globals()[…])",
        ),
        ("vars(mod).get(n)()", "looks up names by key (vars()[…])"),
        (
            "import sys\nsys.modules[name]",
            "looks up names by key (sys.modules[…])",
        ),
        ("d = {}\nd['ev' 'al']", "spells `eval` in a string"),
        ("f = getattr(m, 'lave'[::-1])", "spells `eval` backwards"),
        (
            "f = getattr(m, '\\x65\\x76\\x61\\x6c')",
            "spells `eval` in a string",
        ),
        ("ｅｘｅｃ('1')", "runs code built at run time (exec)"),
        ("e = eval\ne('1')", "(eval)"),
        (
            "from builtins import exec as run\nrun(s)",
            "runs code built at run time (exec)",
        ),
        ("print(f'{eval(x)}')", "(eval)"),
        (
            "().__class__.__base__.__subclasses__()",
            "reaches into interpreter internals (__subclasses__)",
        ),
        (
            "import base64\nbase64.b64decode(s)",
            "decodes hidden data (base64.b64decode)",
        ),
        (
            "import base64 as b\nb.b64decode(s)",
            "decodes hidden data (base64.b64decode)",
        ),
        (
            "from base64 import b64decode as d\nd(s)",
            "decodes hidden data (base64.b64decode)",
        ),
        (
            "from base64 import *\nb64decode(s)",
            "imports every name of base64",
        ),
        (
            "import base64\nb = base64\nb.urlsafe_b64decode(s)",
            "(base64.urlsafe_b64decode)",
        ),
        (
            "import codecs\ncodecs.decode(s, 'rot13')",
            "decodes hidden data (codecs.decode)",
        ),
        (
            "bytes.fromhex('6869')",
            "decodes hidden data (bytes.fromhex)",
        ),
        (
            "bytearray.fromhex(h)",
            "decodes hidden data (bytearray.fromhex)",
        ),
        (
            "import binascii\nbinascii.unhexlify(h)",
            "decodes hidden data (binascii.unhexlify)",
        ),
        (
            "import marshal\nmarshal.loads(b)",
            "loads compiled code from bytes (marshal.loads)",
        ),
        (
            "import pickle\npickle.loads(b)",
            "unpickles data, which can run any code (pickle.loads)",
        ),
        ("import pickle as p\np.load(f)", "(pickle.load)"),
        ("from pickle import loads\nloads(b)", "(pickle.loads)"),
    ];
    let mut wrong = Vec::new();
    for (code, reason) in cases {
        let a = assess_python(code);
        if a.risk < Risk::Medium || !a.reasons.iter().any(|r| r.contains(reason)) {
            wrong.push(format!(
                "{code:?}: want ≥ medium with {reason:?}, got {a:?}"
            ));
        }
        if !a.render().contains(reason) {
            wrong.push(format!("{code:?}: the card does not show {reason:?}"));
        }
    }
    assert!(wrong.is_empty(), "misrated:\n{}", wrong.join("\n"));
}

#[test]
fn decoding_and_running_together_is_high() {
    for code in [
        "import base64\nexec(base64.b64decode('cHJpbnQoMSk='))",
        "from base64 import b64decode as d\neval(d(s))",
        "import marshal, base64\nexec(marshal.loads(base64.b64decode(s)))",
        "import codecs\nexec(codecs.decode(s, 'rot13'))",
        "exec(bytes.fromhex(h))",
        "import pickle, base64\npickle.loads(base64.b64decode(s))",
    ] {
        let a = assess_python(code);
        assert_eq!(a.risk, Risk::High, "{code:?}: {a:?}");
        assert!(
            a.reasons[0].contains("decodes hidden data and runs or loads it as code"),
            "{code:?}: {a:?}"
        );
    }
    // One alone is medium, not high.
    for code in [
        "import pickle\npickle.loads(b)",
        "eval('1+1')",
        "bytes.fromhex('00')",
    ] {
        assert_eq!(assess_python(code).risk, Risk::Medium, "{code:?}");
    }
}

#[test]
fn ordinary_code_stays_low() {
    for code in [
        "print(sum(range(10)))",
        "v = getattr(obj, \"name\")",
        "v = getattr(obj, 'na' 'me', None)",
        "setattr(obj, 'count', 3)",
        "import re\npat = re.compile(r'\\d+')",
        "import json\ndata = json.loads(text)",
        "import pandas as pd\ndf = pd.DataFrame()\ndf.eval('a + b')",
        "# eval(x) and exec(y) only in a comment\nprint(1)",
        "print('we never eval untrusted input')",
        "text = 'execute the plan'",
        "messages = [{'role': 'system', 'content': 'hi'}]",
        "evaluate = 3\nexecutor = evaluate + 1\nprint(executor)",
        "class A:\n    def __init__(self):\n        self.__dict__.update(x=1)",
        "import base64\nprint(base64.b64encode(b'hi'))",
        "s = 'hex'\nprint(s.upper())",
        "größe = 3\nprint(größe)",
        "import math\nprint(math.pi)",
    ] {
        let a = assess_python(code);
        assert_eq!(a.risk, Risk::Low, "{code:?}: {a:?}");
    }
    // A literal getattr stays low in a long program too (the argument scan is bounded).
    let long = "v = getattr(obj, 'name')\n".to_owned() + &"x = [1, 2, 3]\n".repeat(300);
    assert_eq!(assess_python(&long).risk, Risk::Low);
    // …while a computed one is still seen there.
    let long = "v = getattr(obj, n)\n".to_owned() + &"x = [1, 2, 3]\n".repeat(300);
    assert_eq!(assess_python(&long).risk, Risk::Medium);
}

#[test]
fn hostile_python_never_panics() {
    for code in [
        "",
        "'",
        "\"\"\"",
        "f'{",
        "f'{{",
        "f'{'",
        "\\",
        "import",
        "from",
        "from x import",
        "import as",
        "getattr(",
        "getattr(x,",
        "globals(",
        "__builtins__[",
        "'a'+",
        "x.",
        "..",
        "=",
        "a =",
        "\u{202e}eval(1)",
        "r'\\",
        "b'\\x'",
        "'\\777'",
        "ｆ'{eval(1)}'",
    ] {
        let _ = assess_python(code);
    }
    let deep = "f'{".repeat(2_000);
    let _ = assess_python(&deep);
    let many = "(".repeat(50_000) + "eval(x)" + &")".repeat(50_000);
    assert!(assess_python(&many).risk >= Risk::Medium);
}

proptest! {
    #[test]
    fn any_python_like_text_is_judged(code in "[a-z_\\.\\(\\)\\[\\]{}'\"+,=#\\\\ \n\tfrbx0-9]{0,300}") {
        let _ = assess_python(&code);
    }
}
