from aware.v1 import common_pb2 as _common_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Aggregate(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    AGGREGATE_UNSPECIFIED: _ClassVar[Aggregate]
    AGGREGATE_COUNT: _ClassVar[Aggregate]
    AGGREGATE_COUNT_DISTINCT: _ClassVar[Aggregate]
    AGGREGATE_SUM: _ClassVar[Aggregate]
    AGGREGATE_AVG: _ClassVar[Aggregate]
    AGGREGATE_MIN: _ClassVar[Aggregate]
    AGGREGATE_MAX: _ClassVar[Aggregate]
    AGGREGATE_MEDIAN: _ClassVar[Aggregate]
    AGGREGATE_SHARE: _ClassVar[Aggregate]

class TimeBucket(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TIME_BUCKET_UNSPECIFIED: _ClassVar[TimeBucket]
    TIME_BUCKET_YEAR: _ClassVar[TimeBucket]
    TIME_BUCKET_QUARTER: _ClassVar[TimeBucket]
    TIME_BUCKET_MONTH: _ClassVar[TimeBucket]
    TIME_BUCKET_WEEK: _ClassVar[TimeBucket]
    TIME_BUCKET_DAY: _ClassVar[TimeBucket]

class FilterOp(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FILTER_OP_UNSPECIFIED: _ClassVar[FilterOp]
    FILTER_OP_EQ: _ClassVar[FilterOp]
    FILTER_OP_NE: _ClassVar[FilterOp]
    FILTER_OP_LT: _ClassVar[FilterOp]
    FILTER_OP_LE: _ClassVar[FilterOp]
    FILTER_OP_GT: _ClassVar[FilterOp]
    FILTER_OP_GE: _ClassVar[FilterOp]
    FILTER_OP_IN: _ClassVar[FilterOp]
    FILTER_OP_NOT_IN: _ClassVar[FilterOp]
    FILTER_OP_CONTAINS: _ClassVar[FilterOp]
    FILTER_OP_IS_NULL: _ClassVar[FilterOp]
    FILTER_OP_IS_NOT_NULL: _ClassVar[FilterOp]
    FILTER_OP_BETWEEN: _ClassVar[FilterOp]

class Operator(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OPERATOR_UNSPECIFIED: _ClassVar[Operator]
    OPERATOR_ADD: _ClassVar[Operator]
    OPERATOR_SUB: _ClassVar[Operator]
    OPERATOR_MUL: _ClassVar[Operator]
    OPERATOR_DIV: _ClassVar[Operator]
    OPERATOR_DAYS_BETWEEN: _ClassVar[Operator]
AGGREGATE_UNSPECIFIED: Aggregate
AGGREGATE_COUNT: Aggregate
AGGREGATE_COUNT_DISTINCT: Aggregate
AGGREGATE_SUM: Aggregate
AGGREGATE_AVG: Aggregate
AGGREGATE_MIN: Aggregate
AGGREGATE_MAX: Aggregate
AGGREGATE_MEDIAN: Aggregate
AGGREGATE_SHARE: Aggregate
TIME_BUCKET_UNSPECIFIED: TimeBucket
TIME_BUCKET_YEAR: TimeBucket
TIME_BUCKET_QUARTER: TimeBucket
TIME_BUCKET_MONTH: TimeBucket
TIME_BUCKET_WEEK: TimeBucket
TIME_BUCKET_DAY: TimeBucket
FILTER_OP_UNSPECIFIED: FilterOp
FILTER_OP_EQ: FilterOp
FILTER_OP_NE: FilterOp
FILTER_OP_LT: FilterOp
FILTER_OP_LE: FilterOp
FILTER_OP_GT: FilterOp
FILTER_OP_GE: FilterOp
FILTER_OP_IN: FilterOp
FILTER_OP_NOT_IN: FilterOp
FILTER_OP_CONTAINS: FilterOp
FILTER_OP_IS_NULL: FilterOp
FILTER_OP_IS_NOT_NULL: FilterOp
FILTER_OP_BETWEEN: FilterOp
OPERATOR_UNSPECIFIED: Operator
OPERATOR_ADD: Operator
OPERATOR_SUB: Operator
OPERATOR_MUL: Operator
OPERATOR_DIV: Operator
OPERATOR_DAYS_BETWEEN: Operator

class SelectItem(_message.Message):
    __slots__ = ("column", "aggregate", "alias", "per", "bucket", "condition", "expr")
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    AGGREGATE_FIELD_NUMBER: _ClassVar[int]
    ALIAS_FIELD_NUMBER: _ClassVar[int]
    PER_FIELD_NUMBER: _ClassVar[int]
    BUCKET_FIELD_NUMBER: _ClassVar[int]
    CONDITION_FIELD_NUMBER: _ClassVar[int]
    EXPR_FIELD_NUMBER: _ClassVar[int]
    column: str
    aggregate: Aggregate
    alias: str
    per: str
    bucket: TimeBucket
    condition: _containers.RepeatedCompositeFieldContainer[Filter]
    expr: Expression
    def __init__(self, column: _Optional[str] = ..., aggregate: _Optional[_Union[Aggregate, str]] = ..., alias: _Optional[str] = ..., per: _Optional[str] = ..., bucket: _Optional[_Union[TimeBucket, str]] = ..., condition: _Optional[_Iterable[_Union[Filter, _Mapping]]] = ..., expr: _Optional[_Union[Expression, _Mapping]] = ...) -> None: ...

class Filter(_message.Message):
    __slots__ = ("column", "op", "value", "values", "expr")
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    OP_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    EXPR_FIELD_NUMBER: _ClassVar[int]
    column: str
    op: FilterOp
    value: _common_pb2.Value
    values: _containers.RepeatedCompositeFieldContainer[_common_pb2.Value]
    expr: Expression
    def __init__(self, column: _Optional[str] = ..., op: _Optional[_Union[FilterOp, str]] = ..., value: _Optional[_Union[_common_pb2.Value, _Mapping]] = ..., values: _Optional[_Iterable[_Union[_common_pb2.Value, _Mapping]]] = ..., expr: _Optional[_Union[Expression, _Mapping]] = ...) -> None: ...

class Expression(_message.Message):
    __slots__ = ("column", "number", "op", "aggregate", "args")
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    OP_FIELD_NUMBER: _ClassVar[int]
    AGGREGATE_FIELD_NUMBER: _ClassVar[int]
    ARGS_FIELD_NUMBER: _ClassVar[int]
    column: str
    number: float
    op: Operator
    aggregate: Aggregate
    args: _containers.RepeatedCompositeFieldContainer[Expression]
    def __init__(self, column: _Optional[str] = ..., number: _Optional[float] = ..., op: _Optional[_Union[Operator, str]] = ..., aggregate: _Optional[_Union[Aggregate, str]] = ..., args: _Optional[_Iterable[_Union[Expression, _Mapping]]] = ...) -> None: ...

class OrderBy(_message.Message):
    __slots__ = ("column", "descending")
    COLUMN_FIELD_NUMBER: _ClassVar[int]
    DESCENDING_FIELD_NUMBER: _ClassVar[int]
    column: str
    descending: bool
    def __init__(self, column: _Optional[str] = ..., descending: _Optional[bool] = ...) -> None: ...

class QueryPlan(_message.Message):
    __slots__ = ("dataset", "select", "filters", "group_by", "order_by", "limit")
    DATASET_FIELD_NUMBER: _ClassVar[int]
    SELECT_FIELD_NUMBER: _ClassVar[int]
    FILTERS_FIELD_NUMBER: _ClassVar[int]
    GROUP_BY_FIELD_NUMBER: _ClassVar[int]
    ORDER_BY_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    dataset: str
    select: _containers.RepeatedCompositeFieldContainer[SelectItem]
    filters: _containers.RepeatedCompositeFieldContainer[Filter]
    group_by: _containers.RepeatedScalarFieldContainer[str]
    order_by: _containers.RepeatedCompositeFieldContainer[OrderBy]
    limit: int
    def __init__(self, dataset: _Optional[str] = ..., select: _Optional[_Iterable[_Union[SelectItem, _Mapping]]] = ..., filters: _Optional[_Iterable[_Union[Filter, _Mapping]]] = ..., group_by: _Optional[_Iterable[str]] = ..., order_by: _Optional[_Iterable[_Union[OrderBy, _Mapping]]] = ..., limit: _Optional[int] = ...) -> None: ...

class ExecuteSqlRequest(_message.Message):
    __slots__ = ("sql", "limit", "run_heavy")
    SQL_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    RUN_HEAVY_FIELD_NUMBER: _ClassVar[int]
    sql: str
    limit: int
    run_heavy: bool
    def __init__(self, sql: _Optional[str] = ..., limit: _Optional[int] = ..., run_heavy: _Optional[bool] = ...) -> None: ...

class ExecuteSqlResponse(_message.Message):
    __slots__ = ("table", "run_id", "executed_sql")
    TABLE_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    EXECUTED_SQL_FIELD_NUMBER: _ClassVar[int]
    table: _common_pb2.Table
    run_id: str
    executed_sql: str
    def __init__(self, table: _Optional[_Union[_common_pb2.Table, _Mapping]] = ..., run_id: _Optional[str] = ..., executed_sql: _Optional[str] = ...) -> None: ...

class ExecuteQueryPlanRequest(_message.Message):
    __slots__ = ("plan", "limit", "run_heavy")
    PLAN_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    RUN_HEAVY_FIELD_NUMBER: _ClassVar[int]
    plan: QueryPlan
    limit: int
    run_heavy: bool
    def __init__(self, plan: _Optional[_Union[QueryPlan, _Mapping]] = ..., limit: _Optional[int] = ..., run_heavy: _Optional[bool] = ...) -> None: ...

class ExecuteQueryPlanResponse(_message.Message):
    __slots__ = ("table", "run_id", "compiled_sql")
    TABLE_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    COMPILED_SQL_FIELD_NUMBER: _ClassVar[int]
    table: _common_pb2.Table
    run_id: str
    compiled_sql: str
    def __init__(self, table: _Optional[_Union[_common_pb2.Table, _Mapping]] = ..., run_id: _Optional[str] = ..., compiled_sql: _Optional[str] = ...) -> None: ...
