"""gen_fortran_model.py: the model of the C interface for gen_fortran.py.

Parses the ZMPI_FN lines and object-like MPI_ macros of include/mpi.h and
classifies every argument (its kind and intent in Fortran), with the tables
that say what a C prototype cannot.  Shared by the C glue
(gen_fortran_glue.py) and the Fortran sources (gen_fortran_f90.py).
"""
import re
import sys

# ---- Tables: what the C prototypes cannot say ---------------------------

# Functions without a Fortran binding, and why.
LEAVE_OUT_PATTERNS = [
    (r'.*_(c2f|f2c)$', 'C-only handle conversion (MPI 4.1 section 19.3.4)'),
    (r'^Status_(c2f|f2c|c2f08|f082c)$', 'C-only: a C status has no Fortran form'),
    (r'^T_', 'the tool information interface has C bindings only (MPI 4.1 chapter 15)'),
    (r'^(Address|Type_hvector|Type_hindexed|Type_struct|Type_extent|Type_lb|Type_ub)$',
     'removed in MPI-3.0; their Fortran forms take default-INTEGER addresses, which '
     'cannot hold a 64-bit address (use MPI_GET_ADDRESS, MPI_TYPE_CREATE_H*, '
     'MPI_TYPE_GET_EXTENT)'),
]

# Functions whose C glue is written by hand in src/bindings/fortran/ (the
# interfaces are still generated from the argument kinds).
HANDWRITTEN = {
    'Init': 'argc/argv do not exist in Fortran',
    'Init_thread': 'argc/argv do not exist in Fortran',
    'Pcontrol': 'C variadic',
    'Abort': 'flushes Fortran output units first (the job may end at once)',
    'Info_create_env': 'argc/argv do not exist in Fortran',
    'Op_create': 'Fortran callback',
    'Comm_create_errhandler': 'Fortran callback',
    'Win_create_errhandler': 'Fortran callback',
    'File_create_errhandler': 'Fortran callback',
    'Session_create_errhandler': 'Fortran callback',
    'Errhandler_create': 'Fortran callback',
    'Comm_create_keyval': 'Fortran callbacks',
    'Keyval_create': 'Fortran callbacks (the MPI-1 form: default-INTEGER attribute values)',
    'Register_datarep': 'Fortran conversion callbacks; MPI_CONVERSION_FN_NULL is a sentinel',
    'Register_datarep_c': 'Fortran conversion callbacks (large count, mpi_f08 only)',
    'Type_create_keyval': 'Fortran callbacks',
    'Win_create_keyval': 'Fortran callbacks',
    'Comm_get_attr': 'predefined attributes are values in Fortran',
    'Type_get_attr': 'attribute values are integers in Fortran',
    'Win_get_attr': 'predefined attributes are values in Fortran',
    'Attr_get': 'predefined attributes are values in Fortran',
    'Buffer_detach': 'the address is returned only to mpi_f08 (TYPE(C_PTR))',
    'Comm_detach_buffer': 'the address is returned only to mpi_f08 (TYPE(C_PTR))',
    'Session_detach_buffer': 'the address is returned only to mpi_f08 (TYPE(C_PTR))',
    'Grequest_start': 'Fortran callbacks',
    'Op_create_c': 'Fortran callback (large-count user function, mpi_f08 only)',
    'Info_get_string': 'Fortran string lengths',
    'Session_get_nth_pset': 'Fortran string lengths',
    'Comm_spawn': 'argv is an array of blank-padded strings ended by a blank one, read at '
                  'the root only; MPI_ARGV_NULL and MPI_ERRCODES_IGNORE are sentinels',
    'Comm_spawn_multiple': 'array_of_argv is a COUNT x * array of blank-padded strings, row i '
                           'the list of command i ended by a blank one, read at the root only; '
                           'MPI_ARGVS_NULL and MPI_ERRCODES_IGNORE are sentinels',
}

# Statements the glue runs after the C call, by C name.  A Fortran rank
# that returns from ZMPI_CHECKPOINT in a restarted job needs libgfortran's
# command line and options back (src/bindings/fortran/zf_rtargs.c).
POST_CALL = {'ZMPI_Checkpoint': ['if (rc == MPI_SUCCESS) zf_rt_restore();']}

# Fortran-only procedures (no C function), written by hand.
FORTRAN_ONLY = ['F_sync_reg']

HANDLES = {
    'MPI_Comm': 'Comm', 'MPI_Group': 'Group', 'MPI_Datatype': 'Type',
    'MPI_Request': 'Request', 'MPI_Op': 'Op', 'MPI_Errhandler': 'Errhandler',
    'MPI_Message': 'Message', 'MPI_Info': 'Info', 'MPI_Win': 'Win',
    'MPI_File': 'File', 'MPI_Session': 'Session',
}
HANDLE_NULL = {
    'MPI_Comm': 'MPI_COMM_NULL', 'MPI_Group': 'MPI_GROUP_NULL',
    'MPI_Datatype': 'MPI_DATATYPE_NULL', 'MPI_Request': 'MPI_REQUEST_NULL',
    'MPI_Op': 'MPI_OP_NULL', 'MPI_Errhandler': 'MPI_ERRHANDLER_NULL',
    'MPI_Message': 'MPI_MESSAGE_NULL', 'MPI_Info': 'MPI_INFO_NULL',
    'MPI_Win': 'MPI_WIN_NULL', 'MPI_File': 'MPI_FILE_NULL',
    'MPI_Session': 'MPI_SESSION_NULL',
}
INTS = {'MPI_Aint': 'MPI_ADDRESS_KIND', 'MPI_Count': 'MPI_COUNT_KIND',
        'MPI_Offset': 'MPI_OFFSET_KIND'}

# Callback types: their f08 abstract interface and the mpi-module form.
CALLBACKS = {
    'MPI_User_function': 'MPI_User_function',
    'MPI_User_function_c': 'MPI_User_function_c',
    'MPI_Comm_errhandler_function': 'MPI_Comm_errhandler_function',
    'MPI_Handler_function': 'MPI_Comm_errhandler_function',
    'MPI_Win_errhandler_function': 'MPI_Win_errhandler_function',
    'MPI_File_errhandler_function': 'MPI_File_errhandler_function',
    'MPI_Session_errhandler_function': 'MPI_Session_errhandler_function',
    'MPI_Comm_copy_attr_function': 'MPI_Comm_copy_attr_function',
    'MPI_Comm_delete_attr_function': 'MPI_Comm_delete_attr_function',
    'MPI_Type_copy_attr_function': 'MPI_Type_copy_attr_function',
    'MPI_Type_delete_attr_function': 'MPI_Type_delete_attr_function',
    'MPI_Win_copy_attr_function': 'MPI_Win_copy_attr_function',
    'MPI_Win_delete_attr_function': 'MPI_Win_delete_attr_function',
    'MPI_Copy_function': 'MPI_Copy_function',
    'MPI_Delete_function': 'MPI_Delete_function',
    'MPI_Grequest_query_function': 'MPI_Grequest_query_function',
    'MPI_Grequest_free_function': 'MPI_Grequest_free_function',
    'MPI_Grequest_cancel_function': 'MPI_Grequest_cancel_function',
    'MPI_Datarep_conversion_function': 'MPI_Datarep_conversion_function',
    'MPI_Datarep_conversion_function_c': 'MPI_Datarep_conversion_function_c',
    'MPI_Datarep_extent_function': 'MPI_Datarep_extent_function',
}

# int arguments that are LOGICAL in Fortran (scalars and arrays).
LOGICAL_NAMES = {'flag', 'commute', 'reorder', 'high', 'weighted', 'periods',
                 'remain_dims'}

# void * arguments that are choice buffers, and what they are paired with
# (count and datatype arguments) when a non-contiguous section needs a
# derived datatype.
CHOICE_PAIRS = {
    'buf': [('count', 'datatype')],
    'buffer': [('count', 'datatype')],
    'sendbuf': [('sendcount', 'sendtype'), ('count', 'datatype')],
    'recvbuf': [('recvcount', 'recvtype'), ('count', 'datatype')],
    'origin_addr': [('origin_count', 'origin_datatype')],
    'result_addr': [('result_count', 'result_datatype')],
    'compare_addr': [],
    'inbuf': [('incount', 'datatype'), ('count', 'datatype')],
    'inoutbuf': [('count', 'datatype')],
    'outbuf': [('outcount', 'datatype')],
    'userbuf': [],
}
# Choice buffers without one count but with an array of counts per peer
# and one datatype (MPI_Gatherv's recvbuf, MPI_Alltoallv's both): a section
# gets a datatype for one element of that datatype, whose extent is the
# distance in memory of the next (the counts and displacements then apply
# unchanged).
ELEM_TYPES = {'sendbuf': ('sendcounts', 'sendtype'), 'recvbuf': ('recvcounts', 'recvtype')}
# void * arguments used only as addresses (never copied): the first
# element's address is what counts.
ADDRESS_ARGS = {('Get_address', 'location'), ('Win_create', 'base'),
                ('Win_attach', 'base'), ('Win_detach', 'base'),
                ('Free_mem', 'base'), ('Buffer_attach', 'buffer'),
                ('Comm_attach_buffer', 'buffer')}
# void * arguments through which C returns a pointer.
BASEPTR_ARGS = {'baseptr', 'buffer_addr'}

# Pointer arguments that are arrays, with their length (a C expression over
# the C arguments; zf_ helpers are in zf.h).  Int and MPI_Aint arrays pass
# through untouched and need no length; handle and status arrays are
# converted element by element.
ARRAY_LEN = {
    'array_of_requests': 'count', 'array_of_statuses': 'count',
    'array_of_indices': None, 'array_of_types': 'count',
    'array_of_datatypes': 'max_datatypes', 'array_of_info': 'count',
}
ARRAY_LEN_FN = {
    ('Waitsome', 'array_of_requests'): 'incount',
    ('Waitsome', 'array_of_statuses'): 'incount',
    ('Testsome', 'array_of_requests'): 'incount',
    ('Testsome', 'array_of_statuses'): 'incount',
    ('Request_get_status_some', 'array_of_requests'): 'incount',
    ('Request_get_status_some', 'array_of_statuses'): 'incount',
}
# Handle arrays of the w-collectives: one entry per rank of the (remote)
# group, or per neighbour.  They are skipped where MPI_IN_PLACE makes them
# unused.
W_TYPES = {
    'sendtypes': ('zf_coll_size(c_comm)', 'sendbuf'),
    'recvtypes': ('zf_coll_size(c_comm)', None),
}
W_TYPES_NEIGHBOR = {
    'sendtypes': ('zf_nbr_degree(c_comm, 1)', None),
    'recvtypes': ('zf_nbr_degree(c_comm, 0)', None),
}

# Scalars read and written (all other pointers to scalars are written only).
INOUT_SCALARS = {'position', 'comm_keyval', 'type_keyval', 'win_keyval',
                 'keyval'}
INOUT_SCALAR_FN = {('Comm_create_keyval', 'comm_keyval'): 'out',
                   ('Type_create_keyval', 'type_keyval'): 'out',
                   ('Win_create_keyval', 'win_keyval'): 'out',
                   ('Keyval_create', 'keyval'): 'out'}
# Handles read and written through a pointer.
INOUT_HANDLE_FN = re.compile(r'(_free$|^Type_commit$|^Wait|^Test|^Start$|^Cancel$|'
                             r'^File_close$|^Comm_disconnect$|^Session_finalize$|'
                             r'^Request_free$|^Grequest_complete$)')
INOUT_HANDLE_ARGS = {'message'}
# Statuses written and read (the status setters).
STATUS_INOUT_FN = re.compile(r'^Status_set_')
# Outputs that are 0-based indices in C and 1-based in Fortran.
INDEX_OUT = {('Waitany', 'index'), ('Testany', 'index'),
             ('Request_get_status_any', 'index')}
INDEX_ARR_OUT = {'array_of_indices'}
# Output strings: the size of the C buffer (with its NUL).
STR_OUT_SIZE = {
    'name': 'MPI_MAX_OBJECT_NAME + 1', 'comm_name': 'MPI_MAX_OBJECT_NAME + 1',
    'type_name': 'MPI_MAX_OBJECT_NAME + 1', 'win_name': 'MPI_MAX_OBJECT_NAME + 1',
    'version': 'MPI_MAX_LIBRARY_VERSION_STRING + 1',
    'string': 'MPI_MAX_ERROR_STRING + 1', 'key': 'MPI_MAX_INFO_KEY + 1',
    'datarep': 'MPI_MAX_DATAREP_STRING + 1', 'port_name': 'MPI_MAX_PORT_NAME + 1',
}
STR_OUT_SIZE_FN = {('Get_processor_name', 'name'): 'MPI_MAX_PROCESSOR_NAME + 1',
                   ('Info_get', 'value'): '(size_t)(*valuelen < 0 ? 0 : *valuelen) + 1'}
# Weight arrays of the distributed graph calls (MPI_UNWEIGHTED ...).
WEIGHT_ARGS = {'weights', 'sourceweights', 'destweights'}
# Attribute values set from Fortran: the integer itself is the value.
ATTR_IN = {('Comm_set_attr', 'attribute_val'): 'MPI_ADDRESS_KIND',
           ('Type_set_attr', 'attribute_val'): 'MPI_ADDRESS_KIND',
           ('Win_set_attr', 'attribute_val'): 'MPI_ADDRESS_KIND',
           ('Attr_put', 'attribute_val'): None}
# Hand-written functions' special arguments: kind and Fortran kind.
SPECIAL_ARGS = {
    ('Comm_get_attr', 'value'): ('attr_out', 'MPI_ADDRESS_KIND'),
    ('Comm_get_attr', 'attribute_val'): ('attr_out', 'MPI_ADDRESS_KIND'),
    ('Type_get_attr', 'attribute_val'): ('attr_out', 'MPI_ADDRESS_KIND'),
    ('Win_get_attr', 'attribute_val'): ('attr_out', 'MPI_ADDRESS_KIND'),
    ('Attr_get', 'attribute_val'): ('attr_out', None),
    ('Comm_create_keyval', 'extra_state'): ('extra', 'MPI_ADDRESS_KIND'),
    ('Type_create_keyval', 'extra_state'): ('extra', 'MPI_ADDRESS_KIND'),
    ('Win_create_keyval', 'extra_state'): ('extra', 'MPI_ADDRESS_KIND'),
    ('Keyval_create', 'extra_state'): ('extra', None),
    ('Grequest_start', 'extra_state'): ('extra', 'MPI_ADDRESS_KIND'),
    ('Register_datarep', 'extra_state'): ('extra', 'MPI_ADDRESS_KIND'),
    ('Register_datarep_c', 'extra_state'): ('extra', 'MPI_ADDRESS_KIND'),
}

# ---- Parsing ------------------------------------------------------------

FN_RE = re.compile(r'^ZMPI_FN\(\s*([^,]+?)\s*,\s*(\w+)\s*,\s*\((.*)\)\)\s*$')
# zmpi's extensions (ZMPI_Migrate, ZMPI_Set_load, ZMPI_Checkpoint) are
# declared one by one, each with its PZMPI_ twin, in mpi.h's "zmpi
# extensions" sections; they are bound like the MPI functions, under their
# own prefix.
EXT_RE = re.compile(r'^ZMPI_EXPORT\s+(int)\s+ZMPI_(\w+)\s*\((.*)\)\s*;\s*$')
ARG_RE = re.compile(r'^(const\s+)?(\w+)\s*(\**)\s*(\w+)\s*((?:\[\d*\])*)$')


class Fail(Exception):
    pass


class Arg:
    def __init__(self, text):
        m = ARG_RE.match(text.strip())
        if not m:
            raise Fail('cannot parse argument "%s"' % text)
        self.const = bool(m.group(1))
        self.ctype = m.group(2)
        self.ptr = len(m.group(3))
        self.name = m.group(4)
        self.dims = m.group(5)
        self.arr = bool(self.dims)
        self.kind = None      # see classify()
        self.intent = 'in'
        self.length = None    # C expression for converted arrays
        self.skip_if = None   # buffer argument whose MPI_IN_PLACE skips it
        self.fkind = None     # Fortran integer kind name, if not default
        self.cb = None        # callback abstract interface
        self.pair = None      # (count, datatype) of a choice buffer
        self.elem_type = None # datatype of a buffer with per-peer counts (ELEM_TYPES)
        self.ctext = text.strip()


class Fn:
    def __init__(self, ret, name, args, prefix='MPI'):
        self.ret = ret
        self.name = name
        self.args = args
        self.prefix = prefix  # MPI, or ZMPI for zmpi's extensions
        self.reason = None    # left out
        self.hand = name in HANDWRITTEN

    @property
    def lname(self):
        return self.name.lower()

    @property
    def cname(self):
        """The C name (MPI_Send, ZMPI_Migrate)."""
        return '%s_%s' % (self.prefix, self.name)

    @property
    def pname(self):
        """The profiling C name (PMPI_Send, PZMPI_Migrate)."""
        return 'P' + self.cname

    @property
    def f77name(self):
        """The glue symbol gfortran calls for external procedure P<CNAME>
        (pmpi_send_, pzmpi_migrate_); its weak alias drops the p."""
        return 'p%s_' % self.cname.lower()

    def has_choice(self):
        return any(a.kind in ('choice', 'address') for a in self.args)

    def is_async(self):
        """Whether the call may use its buffers after it returns: it starts
        a request (nonblocking, persistent, partitioned), is a one-sided
        communication call, or a split collective."""
        base = self.name[:-2] if self.name.endswith('_c') else self.name
        return (any(a.ctype == 'MPI_Request' and a.ptr and not a.arr and
                    a.intent == 'out' for a in self.args) or
                base in ('Put', 'Get', 'Accumulate', 'Get_accumulate', 'Fetch_and_op',
                         'Compare_and_swap') or
                re.search(r'_(begin|end)$', base) is not None)


def split_args(s):
    s = s.strip()
    if s in ('void', ''):
        return []
    return [a.strip() for a in s.split(',')]


def parse_header(path):
    fns = []
    for line in open(path):
        prefix = 'MPI'
        m = FN_RE.match(line.strip())
        if not m:
            m = EXT_RE.match(line.strip())
            prefix = 'ZMPI'
        if not m:
            continue
        ret, name, args = m.group(1), m.group(2), m.group(3)
        texts = split_args(args)
        if '...' in texts:
            texts = [t for t in texts if t != '...']
        try:
            fn = Fn(ret, name, [Arg(t) for t in texts], prefix)
        except Fail as e:
            fn = Fn(ret, name, [], prefix)
            fn.reason = ('not bound yet: the generator cannot parse its prototype (%s); '
                         'extend scripts/gen_fortran_model.py' % e)
            print('gen_fortran.py: warning: %s left out: %s' % (fn.cname, e), file=sys.stderr)
        fns.append(fn)
    return fns


def parse_macros(path):
    """Object-like MPI_ macros of mpi.h, in order, and the ZMPI_HAS_ ones
    that tell programs which zmpi extensions there are."""
    names = []
    for line in open(path):
        m = re.match(r'^\s*#\s*define\s+((?:MPI_|ZMPI_HAS_)[A-Za-z0-9_]+)(\s|$)', line)
        if m and m.group(1) not in names:
            names.append(m.group(1))
    return names


# ---- Classification -----------------------------------------------------

def classify(fn):
    """Classifies fn's arguments, or leaves fn out (fn.reason): by the
    LEAVE_OUT_PATTERNS, or, when no rule fits, with a warning naming what
    needs a rule, so that a new line in mpi.h never stops the build."""
    if fn.reason:
        return
    for pat, why in LEAVE_OUT_PATTERNS:
        if re.match(pat, fn.name):
            fn.reason = why
            return
    try:
        classify_rules(fn)
    except Fail as e:
        fn.reason = ('not bound yet: the generator has no rule for it (%s); add one to '
                     'scripts/gen_fortran_model.py' % e)
        print('gen_fortran.py: warning: %s left out: %s' % (fn.cname, e), file=sys.stderr)


def classify_rules(fn):
    if fn.ret not in ('int', 'double', 'MPI_Aint'):
        raise Fail('%s returns %s: no rule for it' % (fn.cname, fn.ret))
    names = {a.name for a in fn.args}
    neighbor = 'eighbor' in fn.name
    for a in fn.args:
        try:
            classify_arg(fn, a, names, neighbor)
        except Fail as e:
            raise Fail('%s, argument "%s": %s' % (fn.cname, a.ctext, e))
    if any(a.kind == 'callback' for a in fn.args) and not fn.hand:
        raise Fail('%s takes a callback: its glue must be written by hand '
                   '(add it to HANDWRITTEN and src/bindings/fortran/)' % fn.cname)


def table_key(fn, a):
    """The key of a (function, argument) table: a large-count function
    (name_c) shares the entries of its int twin."""
    name = fn.name[:-2] if fn.name.endswith('_c') else fn.name
    return (name, a.name)


def classify_arg(fn, a, names, neighbor):
    """Sets a.kind, a.intent and what its glue needs; Fail if no rule fits."""
    key = table_key(fn, a)
    t, p = a.ctype, a.ptr
    if key in SPECIAL_ARGS:
        a.kind, a.fkind = SPECIAL_ARGS[key]
        a.intent = 'out' if a.kind == 'attr_out' else 'in'
    elif fn.name in ('Init', 'Init_thread', 'Info_create_env') and a.name in ('argc', 'argv'):
        a.kind = 'argv'
    elif t in CALLBACKS and p == 1:
        a.kind, a.cb = 'callback', CALLBACKS[t]
    elif t == 'void' and p == 1:
        classify_void(fn, a, names)
    elif t == 'char':
        classify_char(fn, a)
    elif t == 'int' or t in INTS or t == 'MPI_Fint':
        classify_int(fn, a)
    elif t in HANDLES:
        classify_handle(fn, a, neighbor)
    elif t == 'MPI_Status':
        classify_status(fn, a)
    elif t == 'MPI_F08_status':
        a.kind, a.intent = 'f08status', 'in' if a.const else 'out'
    elif t == 'double' and p == 0 and not a.arr:
        a.kind = 'real_in'    # DOUBLE PRECISION (ZMPI_Set_load's load)
    else:
        raise Fail('type %s has no rule' % t)


def classify_void(fn, a, names):
    """void *: an attribute value, an address, a returned pointer or a
    choice buffer (with the count and datatype it pairs with)."""
    key = table_key(fn, a)
    if key in ATTR_IN:
        a.kind, a.fkind = 'attr_in', ATTR_IN[key]
    elif key in ADDRESS_ARGS:
        a.kind = 'address'
    elif a.name in BASEPTR_ARGS:
        a.kind, a.intent = 'baseptr', 'out'
    elif a.name in CHOICE_PAIRS:
        a.kind = 'choice'
        a.intent = 'in' if a.const else 'inout'
        for c, d in CHOICE_PAIRS[a.name]:
            if c in names and d in names:
                a.pair = (c, d)
                break
        c, d = ELEM_TYPES.get(a.name, (None, None))
        if not a.pair and c in names and d in names:
            a.elem_type = d
    else:
        raise Fail('a void * the tables do not name (CHOICE_PAIRS, ADDRESS_ARGS, '
                   'BASEPTR_ARGS, ATTR_IN, SPECIAL_ARGS)')


def classify_char(fn, a):
    """A string in (const) or out (with the size of its C buffer), or an
    array of strings read by the call (char *x[]: a Fortran CHARACTER
    array; char **x[]: a rank-2 one, COUNT x *)."""
    if a.arr and a.ptr in (1, 2):
        a.kind, a.intent = ('str_arr_in' if a.ptr == 1 else 'str_arr2_in'), 'in'
        return
    if not (a.ptr == 1 and not a.arr or a.ptr == 0 and a.arr):
        raise Fail('a char argument of unknown shape')
    a.kind = 'str_in' if a.const else 'str_out'
    a.intent = 'in' if a.const else 'out'
    if a.kind == 'str_out':
        a.length = STR_OUT_SIZE_FN.get(table_key(fn, a)) or STR_OUT_SIZE.get(a.name)
        if not a.length and not fn.hand:
            raise Fail('an output string of unknown size (STR_OUT_SIZE)')


def classify_int(fn, a):
    """Integers (int, MPI_Aint, MPI_Count, MPI_Offset, MPI_Fint): scalars,
    arrays, LOGICALs, indices, weights."""
    key = table_key(fn, a)
    t = a.ctype
    a.fkind = INTS.get(t)
    logical = t == 'int' and a.name in LOGICAL_NAMES
    if t == 'MPI_Fint':
        a.kind, a.intent = 'fstatus', 'in' if a.const else 'out'
    elif a.ptr == 0 and not a.arr:
        a.kind = 'logical_in' if logical else 'int_in'
    elif a.arr or a.name in INDEX_ARR_OUT:
        a.kind = 'logical_arr' if logical else 'int_arr'
        a.intent = 'in' if a.const else 'out'
        if a.name in INDEX_ARR_OUT:
            a.kind = 'index_arr'
        if a.name in WEIGHT_ARGS:
            a.kind = 'weights'
        if fn.name == 'Dims_create':
            a.intent = 'inout'
        elif fn.name in ('Group_range_incl', 'Group_range_excl'):
            a.intent = 'in'
    elif a.ptr == 1 and key in INDEX_OUT:
        a.kind, a.intent = 'index_out', 'out'
    elif a.ptr == 1:
        a.kind = 'logical_out' if logical else 'int_out'
        a.intent = 'out'
        if a.name in INOUT_SCALARS and INOUT_SCALAR_FN.get(key) != 'out':
            a.intent = 'inout'
        if a.name in ('buflen', 'pset_len'):
            a.intent = 'inout'
    else:
        raise Fail('an integer of unknown shape')


def classify_handle(fn, a, neighbor):
    """A handle by value, through a pointer (out or in and out), or an
    array of handles with its length."""
    if a.ptr == 0 and not a.arr:
        a.kind = 'handle_in'
    elif a.arr or a.name.startswith('array_of_') or a.name in ('sendtypes', 'recvtypes'):
        a.kind = 'handle_arr'
        a.intent = 'in' if a.const else 'inout'
        if a.name == 'array_of_datatypes':
            a.intent = 'out'
        wt = (W_TYPES_NEIGHBOR if neighbor else W_TYPES).get(a.name)
        if wt:
            a.length, a.skip_if = wt
        else:
            a.length = ARRAY_LEN_FN.get(table_key(fn, a)) or ARRAY_LEN.get(a.name)
        if not a.length:
            raise Fail('an array of handles of unknown length (ARRAY_LEN)')
    elif a.ptr == 1:
        a.kind = 'handle_out'
        a.intent = 'out'
        if INOUT_HANDLE_FN.search(fn.name) or a.name in INOUT_HANDLE_ARGS:
            a.intent = 'inout'
    else:
        raise Fail('a handle of unknown shape')


def classify_status(fn, a):
    """A status read, written or both, or an array of them."""
    if a.name.startswith('array_of_') or a.arr:
        a.kind, a.intent = 'status_arr', 'out'
        a.length = ARRAY_LEN_FN.get(table_key(fn, a)) or ARRAY_LEN.get(a.name)
        if not a.length:
            raise Fail('an array of statuses of unknown length')
    elif a.const:
        a.kind, a.intent = 'status_in', 'in'
    elif STATUS_INOUT_FN.search(fn.name):
        a.kind, a.intent = 'status_inout', 'inout'
    else:
        a.kind, a.intent = 'status_out', 'out'


def write(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, 'w') as f:
        f.write(text)
