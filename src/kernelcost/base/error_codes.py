"""The stable codes of kernelcost's errors: `KC` and three digits, the first naming the family.

A script tests the code, not the message: messages are reworded, codes never change. A code
that stops being raised stays here, retired, so that its number is never given to another
error. Every code is listed with an example in docs/errors.md (tests/test_error_codes.py
holds the two together). The table is plain class attributes, not an Enum: an Enum of this
size costs some 6 ms at import, and every command imports it."""

from __future__ import annotations

FAMILIES = {  # the first digit: (the family's name in JSON, what it covers)
    1: ("syntax", "the text of a spec cannot be read"),
    2: ("check", "the spec breaks a rule of the language, or is outside what a command "
                 "handles"),
    3: ("size", "sizes and options: --set, ranges, values a command needs"),
    4: ("machine", "machines: ids, machine files, figures a machine lacks"),
    5: ("model", "whole models: ids and model files"),
    6: ("measurement", "measurements: --measured and results CSV files"),
    7: ("budget", "the time budget and the limits of the work"),
    8: ("io", "reading inputs and writing outputs"),
    9: ("internal", "a bug in kernelcost"),
}


class ErrorCode(str):
    """`KC203` as a str (so that it prints, compares and goes into JSON as itself), with its
    one-line summary and its family. (`summary`, not `title`: str has a title method.)"""

    name: str
    summary: str

    def __new__(cls, number: int, summary: str) -> ErrorCode:
        code = super().__new__(cls, f"KC{number}")
        code.summary = summary
        return code

    @property
    def family(self) -> str:
        return FAMILIES[int(self[2])][0]


class Code:
    """Every error code, by name. Append; never renumber or reuse a number."""

    # syntax: KC1xx
    SPEC_EMPTY = ErrorCode(101, "the spec is empty")
    UNEXPECTED_TOKEN = ErrorCode(102, "a token the grammar does not allow here")
    UNEXPECTED_END = ErrorCode(103, "the spec ends in the middle of something")
    UNEXPECTED_CHARACTER = ErrorCode(104, "a character the language does not use")
    FOREIGN_OPERATOR = ErrorCode(105, "an operator of another language (`//`, `*=`, `...`)")
    SPEC_TOO_LONG = ErrorCode(106, "the spec is longer than a spec can be")
    NESTS_TOO_DEEP = ErrorCode(107, "brackets, blocks or an expression nest too deeply")
    NUMBER_TOO_LARGE = ErrorCode(108, "a number has too many digits")
    PYTHON_SYNTAX = ErrorCode(109, "the Python file of a Triton kernel cannot be parsed")
    NAME_TOO_LONG = ErrorCode(110, "a name longer than 128 characters, in a spec or a Triton "
                                   "kernel")

    # check: KC2xx
    DUPLICATE_NAME = ErrorCode(201, "a name, a `per` or `target` line or a needed feature "
                                    "is declared twice")
    RESERVED_NAME = ErrorCode(202, "a keyword or a built-in function used as a name")
    UNDEFINED_NAME = ErrorCode(203, "a name, tensor or function that is not declared")
    UNKNOWN_ELEMENT_TYPE = ErrorCode(204, "an element type the language does not know")
    UNKNOWN_LEVEL = ErrorCode(205, "a memory level the language does not know, or the wrong one")
    WRONG_RANK = ErrorCode(206, "a tensor used with the wrong number of indices")
    NOT_AFFINE = ErrorCode(207, "an index that is not affine in the iterators")
    NOT_A_SIZE_EXPRESSION = ErrorCode(208, "an index, bound or step made of what is not a size")
    WRONG_ASSIGNMENT = ErrorCode(209, "an assignment to what cannot be written")
    WRONG_CALL = ErrorCode(210, "a function called with the wrong number of arguments")
    NOT_POSITIVE = ErrorCode(211, "an extent, step, default or count that is not positive")
    NO_WORK = ErrorCode(212, "the kernel has no statement or no assignment")
    WRONG_LOCAL = ErrorCode(213, "a `let` local without the type or shape it needs")
    WRONG_PARALLEL = ErrorCode(214, "a parallel header or the grid it describes is wrong")
    WRONG_LANES = ErrorCode(215, "a `lanes` loop or a `swizzle` in the wrong place")
    WRONG_KEEP = ErrorCode(216, "a `keep` that moves nothing")
    LOOPS_TOO_DEEP = ErrorCode(217, "loops nest deeper than a kernel's nest can")
    UNKNOWN_REUSE = ErrorCode(218, "a `reuse` line with an unknown mode")
    DIVISION_BY_ZERO = ErrorCode(219, "a size expression divides by zero")
    INDEX_OUT_OF_EXTENT = ErrorCode(220, "an index outside the tensor's declared extent")
    ASSUMPTIONS_UNMET = ErrorCode(221, "no small sizes meet the spec's assumptions")
    WRONG_UNIT = ErrorCode(222, "`on` names units the statement cannot run on")
    UNKNOWN_REQUIREMENT = ErrorCode(223, "a `target`, `needs` or `mma` line names an "
                                         "architecture, feature or MMA path the language "
                                         "does not know")
    WRONG_SERIAL = ErrorCode(224, "a `serial` line naming an unknown roof, one twice, or one "
                                  "alone")
    TRITON_NOT_A_KERNEL = ErrorCode(225, "`import`: no such function, or it is not a "
                                         "@triton.jit kernel")
    TRITON_UNSUPPORTED = ErrorCode(226, "`import`: a Triton construct the import cannot map "
                                        "to a spec")
    TRITON_NO_GRID = ErrorCode(227, "`import`: the launch grid is not in the file or cannot be "
                                    "read")
    WRONG_STREAM_K = ErrorCode(228, "a `stream_k` setting beside `split_k`, on what is not "
                                    "the k-loop, on a k-loop bounded by the tile, or with a "
                                    "worker count that is no whole number")
    NOTHING_TO_BOUND = ErrorCode(250, "`bound`: no statement does work")
    OUTSIDE_BOUND_CLASS = ErrorCode(251, "`bound`: the nest is outside the class it bounds")

    # size: KC3xx
    UNREADABLE_SETTING = ErrorCode(301, "a --set value that cannot be read")
    UNKNOWN_PARAMETER = ErrorCode(302, "a name that is not a size parameter of the spec")
    SIZE_NOT_POSITIVE_INTEGER = ErrorCode(303, "a size set to what is not a positive integer")
    SETTING_CYCLE = ErrorCode(304, "sizes set in terms of each other in a cycle")
    SIZES_UNSET = ErrorCode(305, "the command needs sizes that are not set")
    SET_AND_VARIED = ErrorCode(306, "a size both set and solved for or varied")
    NOT_POSITIVE_AT_SIZES = ErrorCode(307, "a step, size or header count that is not positive "
                                           "at the sizes")
    BAD_RANGE = ErrorCode(308, "a --sweep range or --values list that cannot be read")
    TOO_MANY_POINTS = ErrorCode(309, "a sweep or table with too many points")
    OPTION_NEEDS_MACHINE = ErrorCode(310, "an option that needs --machine")
    BAD_OPTION_VALUE = ErrorCode(311, "an option's value that cannot be read")
    NOT_A_TENSOR_READ = ErrorCode(312, "--warm-l2 names what the kernel does not read")
    NO_TRAFFIC_AT_LEVEL = ErrorCode(313, "a memory level at which the kernel moves no bytes")
    NOT_IN_CLOSED_FORM = ErrorCode(314, "an answer with no closed form while sizes are free")
    NOTHING_TO_PLOT = ErrorCode(315, "a kernel that does no work has no place on a roofline")
    UNKNOWN_SPEC_NAME = ErrorCode(316, "an option names a spec that is not on the figure")
    ASSUMPTION_BROKEN_AT_SIZES = ErrorCode(317, "sizes that break an `assume d | n` a verdict "
                                                "counts with")
    SIZE_TOO_LARGE = ErrorCode(318, "a size beyond what a command computes with (doubles, "
                                    "64-bit integers)")
    SCHEDULE_NOT_OPEN = ErrorCode(319, "`tune --vary` names a schedule setting the spec does "
                                       "not write as one number")
    DIVIDES_BY_ZERO_AT_SIZES = ErrorCode(320, "a division in the spec whose divisor is zero at "
                                              "the sizes")
    NOT_WHOLE_AT_SIZES = ErrorCode(321, "a header count (threads, registers, instructions, a "
                                        "cluster, a split, a group) or a loop step that is not "
                                        "a whole number at the sizes")
    USAGE = ErrorCode(322, "a command line the parser cannot read: an unknown option, one "
                           "missing, or one given twice")

    # machine: KC4xx
    UNKNOWN_MACHINE = ErrorCode(401, "neither a built-in machine id nor a machine file")
    MACHINE_NOT_TOML = ErrorCode(402, "a machine file that is not TOML")
    MACHINE_UNKNOWN_KEY = ErrorCode(403, "a key a machine file does not have")
    MACHINE_MISSING_KEY = ErrorCode(404, "a machine file without a key it needs")
    MACHINE_BAD_VALUE = ErrorCode(405, "a machine file's value of the wrong kind or range")
    MACHINE_INCONSISTENT = ErrorCode(406, "a machine file's tables that do not fit together")
    MACHINE_LACKS_FIGURE = ErrorCode(407, "a machine without a figure the command needs")
    NO_PRECISION_PEAK = ErrorCode(408, "a machine without a peak at the precision asked for")
    UNKNOWN_NAME = ErrorCode(409, "a precision, level or work class kernelcost does not know")
    MACHINE_DOES_NOT_RUN = ErrorCode(410, "a machine that does not run the spec's architecture, "
                                          "features or levels, for a command that needs it")
    UNKNOWN_TOPOLOGY = ErrorCode(411, "neither a shipped topology id nor a topology file")

    # model: KC5xx
    UNKNOWN_MODEL = ErrorCode(501, "neither a shipped model id nor a model file")
    MODEL_NOT_TOML = ErrorCode(502, "a model file that is not TOML")
    MODEL_UNKNOWN_KEY = ErrorCode(503, "a key a model file does not have")
    MODEL_MISSING_KEY = ErrorCode(504, "a model file without a figure it needs")
    MODEL_BAD_VALUE = ErrorCode(505, "a model file's value of the wrong kind or range")
    MODEL_INCONSISTENT = ErrorCode(506, "a model file's figures that do not divide")
    GPUS_DO_NOT_DIVIDE = ErrorCode(507, "--gpus does not divide the attention heads")
    MODEL_KERNEL_DOES_NOT_FIT = ErrorCode(508, "a model's kernel does not fit the machine")
    MODEL_NOT_JSON = ErrorCode(509, "a config.json that is not a JSON object")
    MODEL_NOT_COVERED = ErrorCode(510, "a config.json of an architecture, or with a feature, "
                                       "that the composition does not cover")
    PAST_POSITIONS = ErrorCode(511, "a --context longer than the model's positions "
                                    "(max_position_embeddings)")

    # measurement: KC6xx
    UNREADABLE_MEASUREMENT = ErrorCode(601, "a --measured value that cannot be read")
    MEASUREMENT_NOT_POSITIVE = ErrorCode(602, "a measurement that is not positive and finite")
    MEASUREMENT_AMBIGUOUS = ErrorCode(603, "a measurement that fits no one spec or machine")
    MEASUREMENT_NOT_COMPARABLE = ErrorCode(604, "a measurement the verdict cannot be put beside")
    RESULTS_EMPTY = ErrorCode(610, "a results CSV without a header or rows")
    RESULTS_BAD_HEADER = ErrorCode(611, "a results CSV whose header lacks columns")
    RESULTS_BAD_ROW = ErrorCode(612, "a results CSV row that cannot be read")
    RESULTS_BAD_SPEC = ErrorCode(613, "a results CSV row whose spec cannot be analysed")

    # budget: KC7xx
    BUDGET_RAN_OUT = ErrorCode(701, "the command's time budget ran out")
    BAD_BUDGET = ErrorCode(702, "KERNELCOST_BUDGET_S is not a positive number")
    SYMBOLIC_BUDGET_RAN_OUT = ErrorCode(703, "counting needs more symbolic work than allowed")
    ENUMERATION_BUDGET_RAN_OUT = ErrorCode(704, "an enumeration needs more steps than allowed")
    TOO_DEEP_TO_ANALYSE = ErrorCode(705, "the input nests too deeply to analyse")
    COUNTS_TOO_LARGE = ErrorCode(706, "the counts hold numbers with too many digits")
    SUM_TOO_LONG = ErrorCode(707, "a sum kept in a closed form has too many terms to add up")
    OUT_OF_MEMORY = ErrorCode(708, "the work needs more memory than the process may have")

    # io: KC8xx
    NO_SUCH_FILE = ErrorCode(801, "an input file that does not exist")
    CANNOT_READ = ErrorCode(802, "an input file that cannot be read")
    NOT_A_REGULAR_FILE = ErrorCode(803, "an input that is a directory, FIFO or device")
    FILE_TOO_LARGE = ErrorCode(804, "an input file larger than its limit")
    NOT_UTF8 = ErrorCode(805, "an input file that is not UTF-8 text")
    CANNOT_WRITE = ErrorCode(810, "an output file that cannot be written")
    FIGURE_FORMAT = ErrorCode(811, "a figure name without .svg, .png or .pdf")
    OUTPUT_FAILED = ErrorCode(812, "the output could not be written (a full disk, say)")
    NO_MATPLOTLIB = ErrorCode(820, "figures need matplotlib, which is not installed")

    # internal: KC9xx
    UNEXPECTED = ErrorCode(901, "an unexpected exception: a bug in kernelcost")
    WORKER_DIED = ErrorCode(902, "the watched analysis ended on a signal")
    TIMES_OUT_OF_ORDER = ErrorCode(903, "t_floor <= t_bound <= t_model does not hold")


# codes no longer raised: kept in the table and in docs/errors.md so that their numbers stay
# taken (tests/test_error_codes.py checks that every other code is raised somewhere)
RETIRED: frozenset[str] = frozenset()


def all_codes() -> list[ErrorCode]:
    """Every code, in the order of the table."""
    return [value for value in vars(Code).values() if isinstance(value, ErrorCode)]


for _name, _code in vars(Code).items():
    if isinstance(_code, ErrorCode):
        _code.name = _name
