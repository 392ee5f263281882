//! Literal arguments the allowlist bounds: integer literals (possibly negated or parenthesised)
//! and the argument list of a function call.

// `_` arms are the refusals of everything not allowed: see the reason in mod.rs.
#![allow(clippy::wildcard_enum_match_arm)]

use sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr, FunctionArguments, UnaryOperator, Value};

/// An integer literal argument, possibly negated.
pub(super) fn int_literal_arg(arg: &FunctionArg) -> Option<i128> {
    let FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) = arg else { return None };
    int_literal(e)
}

pub(super) fn int_literal(e: &Expr) -> Option<i128> {
    match e {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.replace('_', "").parse().ok(),
            _ => None,
        },
        Expr::UnaryOp { op: UnaryOperator::Minus, expr } => int_literal(expr).map(|n| -n),
        Expr::Nested(inner) => int_literal(inner),
        _ => None,
    }
}

pub(super) fn function_args(args: &FunctionArguments) -> &[FunctionArg] {
    match args {
        FunctionArguments::List(list) => &list.args,
        FunctionArguments::None | FunctionArguments::Subquery(_) => &[],
    }
}
