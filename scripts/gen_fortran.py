#!/usr/bin/env python3
"""gen_fortran.py: generate zmpi's Fortran bindings from include/mpi.h.

The C interface has one description: the ZMPI_FN(ret, Name, (args)) lines of
include/mpi.h.  This script reads them and writes, in the build tree,

  names   fconst_names.h: every object-like MPI_ macro of mpi.h, for the
          constants program (src/bindings/fortran/fconst.c), which prints
          their values as the C library has them;
  sources from mpi.h and that program's output (fconst.txt):
          zf_glue.c      C glue: pmpi_x_ (weak alias mpi_x_) as gfortran calls
                         an external procedure MPI_X, used by mpif.h, the mpi
                         module and, for functions without choice buffers,
                         the mpi_f08 module; MPI_X_f08ts for mpi_f08
                         functions with choice buffers (CFI descriptors);
          mpif.h         constants, sentinels, function types;
          mpi.f90        module mpi (explicit interfaces);
          mpi_f08.f90    module mpi_f08 (derived-type handles, TYPE(*),
                         DIMENSION(..) buffers, optional ierror).

What a C prototype cannot say (which int is a LOGICAL, which pointer is an
array and how long, which handle is read and written, which void * is a
choice buffer) is in the tables below.  An argument the rules and tables
cannot classify stops the build with a message naming the function: every
C function gets a binding or a written reason (LEAVE_OUT) for having none.
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
    'Init': 'argc/argv do not exist in Fortran; registers mpif.h sentinels',
    'Init_thread': 'argc/argv do not exist in Fortran; registers mpif.h sentinels',
    'Session_init': 'registers mpif.h sentinels',
    'Pcontrol': 'C variadic',
    'Info_create_env': 'argc/argv do not exist in Fortran',
    'Op_create': 'Fortran callback',
    'Comm_create_errhandler': 'Fortran callback',
    'Win_create_errhandler': 'Fortran callback',
    'File_create_errhandler': 'Fortran callback',
    'Session_create_errhandler': 'Fortran callback',
    'Errhandler_create': 'Fortran callback',
    'Comm_create_keyval': 'Fortran callbacks',
    'Type_create_keyval': 'Fortran callbacks',
    'Win_create_keyval': 'Fortran callbacks',
    'Keyval_create': 'Fortran callbacks',
    'Comm_get_attr': 'predefined attributes are values in Fortran',
    'Type_get_attr': 'attribute values are integers in Fortran',
    'Win_get_attr': 'predefined attributes are values in Fortran',
    'Attr_get': 'predefined attributes are values in Fortran',
    'Grequest_start': 'Fortran callbacks',
    'Register_datarep': 'Fortran callbacks',
    'Buffer_detach': 'the address is returned only to mpi_f08 (TYPE(C_PTR))',
    'Comm_detach_buffer': 'the address is returned only to mpi_f08 (TYPE(C_PTR))',
    'Info_get_string': 'Fortran string lengths',
    'Session_get_nth_pset': 'Fortran string lengths',
}

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
    'array_of_datatypes': 'max_datatypes',
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
    'datarep': 'MPI_MAX_DATAREP_STRING + 1',
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
}

# ---- Parsing ------------------------------------------------------------

FN_RE = re.compile(r'^ZMPI_FN\(\s*([^,]+?)\s*,\s*(\w+)\s*,\s*\((.*)\)\)\s*$')
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
        self.ctext = text.strip()


class Fn:
    def __init__(self, ret, name, args):
        self.ret = ret
        self.name = name
        self.args = args
        self.reason = None    # left out
        self.hand = name in HANDWRITTEN

    @property
    def lname(self):
        return self.name.lower()

    def has_choice(self):
        return any(a.kind in ('choice', 'address') for a in self.args)

    def is_async(self):
        n = self.name
        return (any(a.ctype == 'MPI_Request' and a.ptr and not a.arr and
                    a.intent == 'out' for a in self.args) or
                n in ('Put', 'Get', 'Accumulate', 'Get_accumulate', 'Fetch_and_op',
                      'Compare_and_swap') or n.startswith(('Put_', 'Get_c', 'Accumulate_')) or
                re.search(r'_(begin|end)(_c)?$', n) is not None)


def split_args(s):
    s = s.strip()
    if s in ('void', ''):
        return []
    return [a.strip() for a in s.split(',')]


def parse_header(path):
    fns = []
    for line in open(path):
        m = FN_RE.match(line.strip())
        if not m:
            continue
        ret, name, args = m.group(1), m.group(2), m.group(3)
        texts = split_args(args)
        if '...' in texts:
            texts = [t for t in texts if t != '...']
        try:
            fn = Fn(ret, name, [Arg(t) for t in texts])
        except Fail as e:
            raise Fail('MPI_%s: %s' % (name, e))
        fns.append(fn)
    return fns


def parse_macros(path):
    """Object-like MPI_ macros of mpi.h, in order."""
    names = []
    for line in open(path):
        m = re.match(r'^\s*#\s*define\s+(MPI_[A-Za-z0-9_]+)(\s|$)', line)
        if m and m.group(1) not in names:
            names.append(m.group(1))
    return names


# ---- Classification -----------------------------------------------------

def classify(fn):
    for pat, why in LEAVE_OUT_PATTERNS:
        if re.match(pat, fn.name):
            fn.reason = why
            return
    if fn.ret not in ('int', 'double', 'MPI_Aint'):
        raise Fail('MPI_%s returns %s: no rule for it' % (fn.name, fn.ret))
    names = {a.name for a in fn.args}
    neighbor = 'eighbor' in fn.name
    for a in fn.args:
        try:
            classify_arg(fn, a, names, neighbor)
        except Fail as e:
            raise Fail('MPI_%s, argument "%s": %s' % (fn.name, a.ctext, e))
    if any(a.kind == 'callback' for a in fn.args) and not fn.hand:
        raise Fail('MPI_%s takes a callback: its glue must be written by hand '
                   '(add it to HANDWRITTEN and src/bindings/fortran/)' % fn.name)


def classify_arg(fn, a, names, neighbor):
    key = (fn.name, a.name)
    t, p = a.ctype, a.ptr
    if key in SPECIAL_ARGS:
        a.kind, a.fkind = SPECIAL_ARGS[key]
        a.intent = 'out' if a.kind == 'attr_out' else 'in'
        return
    if fn.name in ('Init', 'Init_thread', 'Info_create_env') and a.name in ('argc', 'argv'):
        a.kind = 'argv'
        return
    if t in CALLBACKS and p == 1:
        a.kind, a.cb = 'callback', CALLBACKS[t]
        return
    if t == 'void' and p == 1:
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
        else:
            raise Fail('a void * the tables do not name (CHOICE_PAIRS, ADDRESS_ARGS, '
                       'BASEPTR_ARGS, ATTR_IN, SPECIAL_ARGS)')
        return
    if t == 'char':
        if p == 1 and not a.arr or p == 0 and a.arr:
            a.kind = 'str_in' if a.const else 'str_out'
            a.intent = 'in' if a.const else 'out'
            if a.kind == 'str_out':
                a.length = STR_OUT_SIZE_FN.get(key) or STR_OUT_SIZE.get(a.name)
                if not a.length and not fn.hand:
                    raise Fail('an output string of unknown size (STR_OUT_SIZE)')
            return
        raise Fail('a char argument of unknown shape')
    if t == 'int' or t in INTS or t == 'MPI_Fint':
        a.fkind = INTS.get(t)
        logical = t == 'int' and a.name in LOGICAL_NAMES
        if t == 'MPI_Fint':
            a.kind, a.intent = 'fstatus', 'in' if a.const else 'out'
            return
        if p == 0 and not a.arr:
            a.kind = 'logical_in' if logical else 'int_in'
            return
        if a.arr or a.name in INDEX_ARR_OUT:
            a.kind = 'logical_arr' if logical else 'int_arr'
            a.intent = 'in' if a.const else 'out'
            if a.name in INDEX_ARR_OUT:
                a.kind = 'index_arr'
            if a.name in WEIGHT_ARGS:
                a.kind = 'weights'
            if fn.name in ('Dims_create',) or (fn.name == 'Group_range_incl' or
                                               fn.name == 'Group_range_excl'):
                a.intent = 'inout' if fn.name == 'Dims_create' else 'in'
            return
        if p == 1:
            if key in INDEX_OUT:
                a.kind, a.intent = 'index_out', 'out'
                return
            a.kind = 'logical_out' if logical else 'int_out'
            a.intent = 'out'
            if a.name in INOUT_SCALARS and INOUT_SCALAR_FN.get(key) != 'out':
                a.intent = 'inout'
            if a.name in ('buflen', 'pset_len'):
                a.intent = 'inout'
            return
        raise Fail('an integer of unknown shape')
    if t in HANDLES:
        if p == 0 and not a.arr:
            a.kind = 'handle_in'
            return
        if a.arr or a.name.startswith('array_of_') or a.name in ('sendtypes', 'recvtypes'):
            a.kind = 'handle_arr'
            a.intent = 'in' if a.const else 'inout'
            if a.name == 'array_of_datatypes':
                a.intent = 'out'
            wt = (W_TYPES_NEIGHBOR if neighbor else W_TYPES).get(a.name)
            if wt:
                a.length, a.skip_if = wt
            else:
                a.length = ARRAY_LEN_FN.get((fn.name, a.name)) or ARRAY_LEN.get(a.name)
            if not a.length:
                raise Fail('an array of handles of unknown length (ARRAY_LEN)')
            return
        if p == 1:
            a.kind = 'handle_out'
            a.intent = 'out'
            if INOUT_HANDLE_FN.search(fn.name) or a.name in INOUT_HANDLE_ARGS:
                a.intent = 'inout'
            return
        raise Fail('a handle of unknown shape')
    if t == 'MPI_Status':
        if a.name.startswith('array_of_') or a.arr:
            a.kind, a.intent = 'status_arr', 'out'
            a.length = ARRAY_LEN_FN.get((fn.name, a.name)) or ARRAY_LEN.get(a.name)
            if not a.length:
                raise Fail('an array of statuses of unknown length')
            return
        if a.const:
            a.kind, a.intent = 'status_in', 'in'
        elif STATUS_INOUT_FN.search(fn.name):
            a.kind, a.intent = 'status_inout', 'inout'
        else:
            a.kind, a.intent = 'status_out', 'out'
        return
    if t == 'MPI_F08_status':
        a.kind, a.intent = 'f08status', 'in' if a.const else 'out'
        return
    raise Fail('type %s has no rule' % t)


# ---- C glue -------------------------------------------------------------

def cparam(a):
    """The parameter of the mpif.h/mpi glue (gfortran passes by reference)."""
    k = a.kind
    if k in ('choice', 'address', 'baseptr'):
        return '%svoid *%s' % ('const ' if a.const else '', a.name)
    if k in ('str_in',):
        return 'const char *%s' % a.name
    if k == 'str_out':
        return 'char *%s' % a.name
    if k == 'attr_in':
        return 'const %s *%s' % ('MPI_Aint' if a.fkind else 'MPI_Fint', a.name)
    if k == 'f08status':
        return '%sMPI_F08_status *%s' % ('const ' if a.const else '', a.name)
    if a.fkind:
        return '%s *%s' % (a.ctype, a.name)
    return 'MPI_Fint *%s' % a.name


def hidden_lens(fn):
    return ['size_t %s_len' % a.name for a in fn.args if a.kind in ('str_in', 'str_out')]


def f77_proto(fn, name):
    params = [cparam(a) for a in fn.args]
    if fn.ret == 'int':
        params.append('MPI_Fint *ierror')
    params += hidden_lens(fn)
    ret = {'int': 'void', 'double': 'double', 'MPI_Aint': 'MPI_Aint'}[fn.ret]
    return '%s %s(%s)' % (ret, name, ', '.join(params) if params else 'void')


class Body:
    def __init__(self):
        self.decl, self.pre, self.post, self.free = [], [], [], []
        self.callargs = []


def conv_arg(fn, a, b, f08=False):
    """Adds the conversion of argument a to body b; f08: choice buffers and
    strings come as CFI descriptors."""
    k, n = a.kind, a.name
    c = 'c_' + n
    if k == 'int_in':
        b.callargs.append('(int)*%s' % n if not a.fkind else '*%s' % n)
    elif k == 'logical_in':
        b.callargs.append('*%s != 0' % n)
    elif k in ('int_out', 'int_arr', 'logical_arr', 'index_arr') and not a.fkind:
        b.callargs.append(n)
        if k == 'index_arr':
            b.post.append('if (rc == MPI_SUCCESS) zf_shift_indices(%s, outcount);' % n)
    elif k in ('int_out', 'int_arr'):
        b.callargs.append(n)
    elif k == 'index_out':
        b.callargs.append(n)
        b.post.append('if (rc == MPI_SUCCESS && *%s != MPI_UNDEFINED && *%s >= 0) *%s += 1;'
                      % (n, n, n))
    elif k == 'logical_out':
        b.decl.append('int %s = 0;' % c)
        b.callargs.append('&' + c)
        b.post.append('*%s = %s ? ZF_TRUE : ZF_FALSE;' % (n, c))
    elif k == 'weights':
        b.callargs.append('zf_weights(%s)' % n)
    elif k == 'handle_in':
        b.callargs.append('PMPI_%s_f2c(*%s)' % (HANDLES[a.ctype], n))
    elif k == 'handle_out':
        h = HANDLES[a.ctype]
        if a.intent == 'inout':
            b.decl.append('%s %s = PMPI_%s_f2c(*%s), %s0 = %s;' % (a.ctype, c, h, n, c, c))
            b.callargs.append('&' + c)
            b.post.append('if (%s != %s0) *%s = PMPI_%s_c2f(%s);' % (c, c, n, h, c))
            if a.ctype == 'MPI_Request':
                b.post.append('if (%s != %s0 && zf_nkept()) zf_release(%s0);' % (c, c, c))
        else:
            b.decl.append('%s %s = %s;' % (a.ctype, c, HANDLE_NULL[a.ctype]))
            b.callargs.append('&' + c)
            b.post.append('*%s = PMPI_%s_c2f(%s);' % (n, h, c))
    elif k == 'handle_arr':
        h = HANDLES[a.ctype]
        ln = 'n_' + n
        length = a.length
        length = re.sub(r'\b(count|incount|max_datatypes)\b', r'(int)*\1', length)
        b.decl.append('%s zs_%s[ZF_SMALL];' % (a.ctype, n))
        skip = ''
        if a.skip_if:
            skip = '%s == MPI_IN_PLACE ? 0 : ' % ('zb_' + a.skip_if if f08 else
                                                  'zf_buf((void *)%s)' % a.skip_if)
        b.pre.append('int %s = %s%s;' % (ln, skip, length))
        b.pre.append('%s *%s = zf_tmp(zs_%s, sizeof zs_%s, %s, sizeof *%s);'
                     % (a.ctype, c, n, n, ln, c))
        b.pre.append('if (!%s) { rc = zf_oom("MPI_%s"); goto out; }' % (c, fn.name))
        if a.intent in ('in', 'inout'):
            b.pre.append('for (int i = 0; i < %s; i++) %s[i] = PMPI_%s_f2c(%s[i]);'
                         % (ln, c, h, n))
        else:
            b.pre.append('for (int i = 0; i < %s; i++) %s[i] = %s;'
                         % (ln, c, HANDLE_NULL[a.ctype]))
        b.callargs.append(c)
        if a.intent == 'inout':
            rel = ''
            if a.ctype == 'MPI_Request':
                rel = ' if (zf_nkept()) zf_release(PMPI_Request_f2c(%s[i]));' % n
            b.post.append('for (int i = 0; i < %s; i++) if (%s[i] != PMPI_%s_f2c(%s[i])) {%s '
                          '%s[i] = PMPI_%s_c2f(%s[i]); }' % (ln, c, h, n, rel, n, h, c))
        elif a.intent == 'out':
            b.post.append('for (int i = 0; i < %s; i++) %s[i] = PMPI_%s_c2f(%s[i]);'
                          % (ln, n, h, c))
        if fn.is_async():
            b.free.append('if (rc == MPI_SUCCESS && %s != zs_%s) zf_keep(c_request, %s); '
                          'else zf_tmp_free(%s, zs_%s);' % (c, n, c, c, n))
        else:
            b.free.append('zf_tmp_free(%s, zs_%s);' % (c, n))
    elif k in ('status_out', 'status_inout', 'status_in'):
        b.decl.append('MPI_Status %s = {0};' % c)
        if k != 'status_out':
            b.pre.append('if (!zf_status_ignored(%s)) PMPI_Status_f2c(%s, &%s);' % (n, n, c))
        b.callargs.append('zf_status_ignored(%s) ? MPI_STATUS_IGNORE : &%s' % (n, c))
        if k != 'status_in':
            b.post.append('if (!zf_status_ignored(%s)) PMPI_Status_c2f(&%s, %s);' % (n, c, n))
    elif k == 'status_arr':
        ln = 'n_' + n
        length = re.sub(r'\b(count|incount)\b', r'(int)*\1', a.length)
        b.decl.append('MPI_Status zs_%s[ZF_SMALL];' % n)
        b.pre.append('int %s = zf_statuses_ignored(%s) ? 0 : %s;' % (ln, n, length))
        b.pre.append('MPI_Status *%s = zf_tmp(zs_%s, sizeof zs_%s, %s, sizeof *%s);'
                     % (c, n, n, ln, c))
        b.pre.append('if (!%s) { rc = zf_oom("MPI_%s"); goto out; }' % (c, fn.name))
        b.callargs.append('zf_statuses_ignored(%s) ? MPI_STATUSES_IGNORE : %s' % (n, c))
        b.post.append('for (int i = 0; i < %s; i++) PMPI_Status_c2f(&%s[i], %s + '
                      '(size_t)i * MPI_STATUS_SIZE);' % (ln, c, n))
        b.free.append('zf_tmp_free(%s, zs_%s);' % (c, n))
    elif k in ('fstatus', 'f08status'):
        b.callargs.append(n)
    elif k in ('choice', 'address'):
        if f08:
            b.callargs.append('zb_%s' % n)
        else:
            b.callargs.append('zf_buf((void *)%s)' % n)
    elif k == 'baseptr':
        b.callargs.append(n)
    elif k == 'attr_in':
        b.callargs.append('(void *)(intptr_t)*%s' % n)
    elif k == 'str_in':
        b.decl.append('char zs_%s[ZF_STR];' % n)
        if f08:
            b.pre.append('char *%s = zf_str_in((const char *)%s->base_addr, %s->elem_len, '
                         'zs_%s, sizeof zs_%s);' % (c, n, n, n, n))
        else:
            b.pre.append('char *%s = zf_str_in(%s, %s_len, zs_%s, sizeof zs_%s);'
                         % (c, n, n, n, n))
        b.pre.append('if (!%s) { rc = zf_oom("MPI_%s"); goto out; }' % (c, fn.name))
        b.callargs.append(c)
        b.free.append('zf_tmp_free(%s, zs_%s);' % (c, n))
    elif k == 'str_out':
        b.decl.append('char zs_%s[ZF_STR];' % n)
        b.pre.append('char *%s = zf_tmp(zs_%s, sizeof zs_%s, (long)(%s), 1);'
                     % (c, n, n, a.length))
        b.pre.append('if (!%s) { rc = zf_oom("MPI_%s"); goto out; }' % (c, fn.name))
        b.pre.append('%s[0] = 0;' % c)
        b.callargs.append(c)
        b.post.append('if (rc == MPI_SUCCESS) zf_str_out(%s, %s_len, %s);' % (n, n, c))
        b.free.append('zf_tmp_free(%s, zs_%s);' % (c, n))
    else:
        raise Fail('MPI_%s: no glue for argument kind %s' % (fn.name, k))


def emit_body(fn, b, cname, out):
    for d in b.decl:
        out.append('    ' + d)
    if fn.ret != 'int':
        out.append('    return PMPI_%s(%s);' % (fn.name, ', '.join(b.callargs)))
        return
    out.append('    int rc = MPI_SUCCESS;')
    for p in b.pre:
        out.append('    ' + p)
    out.append('    rc = PMPI_%s(%s);' % (fn.name, ', '.join(b.callargs)))
    for p in b.post:
        out.append('    ' + p)
    if any('goto out' in p for p in b.pre) or b.free:
        out.append('out:')
    for p in b.free:
        out.append('    ' + p)
    out.append('    if (ierror)')
    out.append('        *ierror = rc;')


def needs_request_var(fn):
    return any(a.kind == 'handle_arr' and fn.is_async() for a in fn.args)


def gen_f77(fn, out):
    name = 'pmpi_%s_' % fn.lname
    b = Body()
    for a in fn.args:
        conv_arg(fn, a, b)
    out.append('/* MPI_%s */' % fn.name)
    out.append(f77_proto(fn, name))
    out.append('{')
    if needs_request_var(fn):
        b.decl.insert(0, 'MPI_Request *c_request = NULL;')
        b.callargs = [x if x != 'c_request' else x for x in b.callargs]
        b.post.insert(0, 'if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(*c_request);')
    fix_request_arg(fn, b)
    fix_comm_var(fn, b)
    emit_body(fn, b, name, out)
    out.append('}')
    out.append('ZF_WEAK(%s, mpi_%s_)' % (name, fn.lname))
    out.append('')


def fix_request_arg(fn, b):
    """Nonblocking calls whose converted arrays must outlive the call keep
    them with the request (zf_keep)."""
    if not needs_request_var(fn):
        return
    for i, a in enumerate(fn.args):
        if a.name == 'request' and a.kind == 'handle_out':
            b.decl = [d for d in b.decl if not d.startswith('MPI_Request c_request =')]
            b.decl.insert(0, 'MPI_Request c_request_v = MPI_REQUEST_NULL, *c_request = '
                             '&c_request_v;')
            b.callargs[i] = 'c_request'
            b.post = [p for p in b.post if not p.startswith('*request = PMPI_Request_c2f(c_request)')]


def fix_comm_var(fn, b):
    """The w-collectives need the C communicator before the call."""
    if any(a.skip_if is not None or (a.length and 'c_comm' in a.length) for a in fn.args):
        b.decl.insert(0, 'MPI_Comm c_comm = PMPI_Comm_f2c(*comm);')


def f08ts_proto(fn, name):
    params = []
    for a in fn.args:
        if a.kind in ('choice', 'address'):
            params.append('CFI_cdesc_t *%s' % a.name)
        elif a.kind == 'str_in':
            params.append('CFI_cdesc_t *%s' % a.name)
        else:
            params.append(cparam(a))
    params.append('MPI_Fint *ierror')
    return 'void %s(%s)' % (name, ', '.join(params))


def gen_f08ts(fn, out):
    """The mpi_f08 form of a function with choice buffers: buffers (and
    strings) come as CFI descriptors."""
    name = 'PMPI_%s_f08ts' % fn.name
    b = Body()
    bufs = [a for a in fn.args if a.kind in ('choice', 'address')]
    for a in fn.args:
        conv_arg(fn, a, b, f08=True)
    async_ = 1 if fn.is_async() else 0
    pre = []
    for a in bufs:
        n = a.name
        b.decl.append('zf_cbuf_t zc_%s;' % n)
        mode = 'ZF_ADDR' if a.kind == 'address' else ('ZF_IN' if a.const else 'ZF_INOUT')
        if a.pair:
            cnt, dt = a.pair
            pre.append('rc = zf_cbuf_in(&zc_%s, %s, %s, %d, (long long)*%s, '
                       'PMPI_Type_f2c(*%s), "MPI_%s", "%s");'
                       % (n, n, mode, async_, cnt, dt, fn.name, n))
        else:
            pre.append('rc = zf_cbuf_in(&zc_%s, %s, %s, %d, -1, MPI_DATATYPE_NULL, '
                       '"MPI_%s", "%s");' % (n, n, mode, async_, fn.name, n))
        pre.append('if (rc != MPI_SUCCESS) goto out_%s;' % n)
        pre.append('void *zb_%s = zc_%s.ptr;' % (n, n))
    # Pairs replaced by a section datatype.
    for i, a in enumerate(fn.args):
        for bb in bufs:
            if bb.pair and a.name == bb.pair[0]:
                b.callargs[i] = 'zc_%s.sec ? 1 : %s' % (bb.name, b.callargs[i])
            if bb.pair and a.name == bb.pair[1]:
                b.callargs[i] = 'zc_%s.sec ? zc_%s.sec : %s' % (bb.name, bb.name, b.callargs[i])
    b.pre = pre + b.pre
    frees = []
    for a in reversed(bufs):
        frees.append('zf_cbuf_done(&zc_%s, rc);' % a.name)
        frees.append('out_%s:;' % a.name)
    out.append('/* MPI_%s, mpi_f08 */' % fn.name)
    out.append(f08ts_proto(fn, name))
    out.append('{')
    if needs_request_var(fn):
        b.post.insert(0, 'if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(*c_request);')
    fix_request_arg(fn, b)
    fix_comm_var(fn, b)
    for d in b.decl:
        out.append('    ' + d)
    out.append('    int rc = MPI_SUCCESS;')
    for p in b.pre:
        out.append('    ' + p)
    out.append('    rc = PMPI_%s(%s);' % (fn.name, ', '.join(b.callargs)))
    for p in b.post:
        out.append('    ' + p)
    out.append('out:')
    for p in b.free:
        out.append('    ' + p)
    # Labels out_<buf> after their buffers' cleanup, in reverse order.
    for p in frees:
        out.append('    ' + p if not p.startswith('out_') else p)
    out.append('    if (ierror)')
    out.append('        *ierror = rc;')
    out.append('}')
    out.append('ZF_WEAK(%s, MPI_%s_f08ts)' % (name, fn.name))
    out.append('')


def gen_glue(fns, path):
    out = ['/* DO NOT EDIT: generated by scripts/gen_fortran.py from include/mpi.h.',
           ' * The C glue of the Fortran bindings (docs/fortran.md). */',
           '#include "zf.h"', '']
    for fn in fns:
        if fn.reason or fn.hand:
            continue
        if not fn.name.endswith('_c') or True:
            gen_f77(fn, out)
        if fn.has_choice():
            gen_f08ts(fn, out)
    # Prototypes of the hand-written glue, checked against the kinds.
    hdr = ['/* DO NOT EDIT: generated by scripts/gen_fortran.py. Prototypes of the',
           ' * hand-written glue (src/bindings/fortran/), as the interfaces call it. */',
           '#include "zf.h"']
    for fn in fns:
        if fn.hand and not fn.reason:
            hdr.append(f77_proto(fn, 'pmpi_%s_' % fn.lname) + ';')
            if fn.has_choice():
                hdr.append(f08ts_proto(fn, 'PMPI_%s_f08ts' % fn.name) + ';')
    write(path, '\n'.join(out) + '\n')
    write(path.replace('.c', '_hand.h'), '\n'.join(hdr) + '\n')


# ---- Fortran interfaces -------------------------------------------------

def ftype(a, f08):
    """Type declaration of dummy a (without the name)."""
    k = a.kind
    intent = {'in': 'INTENT(IN)', 'out': 'INTENT(OUT)', 'inout': 'INTENT(INOUT)'}[a.intent]
    def integer():
        return 'INTEGER(KIND=%s)' % a.fkind if a.fkind else 'INTEGER'
    if k in ('int_in', 'int_out', 'index_out'):
        return '%s, %s' % (integer(), intent), ''
    if k in ('logical_in', 'logical_out'):
        return 'LOGICAL, %s' % intent, ''
    if k in ('int_arr', 'index_arr', 'weights'):
        dims = '(3,*)' if a.dims == '[][3]' else '(*)'
        return '%s, %s' % (integer(), intent), dims
    if k == 'logical_arr':
        return 'LOGICAL, %s' % intent, '(*)'
    if k in ('handle_in', 'handle_out'):
        return ('TYPE(%s), %s' % (a.ctype, intent) if f08 else 'INTEGER, %s' % intent), ''
    if k == 'handle_arr':
        return ('TYPE(%s), %s' % (a.ctype, intent) if f08 else 'INTEGER, %s' % intent), '(*)'
    if k in ('status_in', 'status_out', 'status_inout'):
        if f08:
            return 'TYPE(MPI_Status), %s' % intent, ''
        return 'INTEGER, %s' % intent, '(MPI_STATUS_SIZE)'
    if k == 'status_arr':
        if f08:
            return 'TYPE(MPI_Status), %s' % intent, '(*)'
        return 'INTEGER, %s' % intent, '(MPI_STATUS_SIZE,*)'
    if k == 'fstatus':
        return 'INTEGER, %s' % intent, '(MPI_STATUS_SIZE)'
    if k == 'f08status':
        return 'TYPE(MPI_Status), %s' % intent, ''
    if k in ('choice', 'address'):
        if f08:
            extra = ', INTENT(IN)' if a.const and k == 'choice' else ''
            return 'TYPE(*), DIMENSION(..)%s' % extra, ''
        return 'TYPE(*)', '(*)'
    if k == 'baseptr':
        if f08:
            return 'TYPE(C_PTR), INTENT(OUT)', ''
        return 'TYPE(*)', ''
    if k in ('attr_in', 'attr_out', 'extra'):
        return '%s, %s' % (integer(), intent), ''
    if k in ('str_in', 'str_out'):
        return 'CHARACTER(LEN=*), %s' % intent, ''
    if k == 'callback':
        return ('PROCEDURE(%s)' % a.cb if f08 else 'EXTERNAL'), ''
    raise Fail('no Fortran type for kind %s' % k)


def fargs(fn):
    return [a for a in fn.args if a.kind != 'argv']


def wrap(line, indent):
    """Free-form line of at most 100 characters, continued with &."""
    out = []
    while len(line) > 100:
        cut = line.rfind(', ', 0, 96)
        if cut < 0:
            break
        out.append(line[:cut + 1] + ' &')
        line = indent + '    ' + line[cut + 2:]
    out.append(line)
    return out


def interface_body(fn, f08, specific, bindc, async_, indent):
    """One interface body (subroutine or function) for module mpi or mpi_f08."""
    args = fargs(fn)
    names = [a.name for a in args]
    if fn.ret == 'int':
        names.append('ierror')
    head = 'SUBROUTINE' if fn.ret == 'int' else {
        'double': 'DOUBLE PRECISION FUNCTION',
        'MPI_Aint': 'INTEGER(KIND=MPI_ADDRESS_KIND) FUNCTION'}[fn.ret]
    suffix = ' BIND(C, NAME="%s")' % bindc if bindc else ''
    lines = wrap('%s%s %s(%s)%s' % (indent, head, specific, ', '.join(names), suffix), indent)
    lines.append(indent + '  IMPORT')
    nocheck = []
    for a in args:
        t, dims = ftype(a, f08)
        if not f08 and a.kind in ('choice', 'address', 'baseptr'):
            nocheck.append(a.name)
        if f08 and async_ and a.kind == 'choice':
            t += ', ASYNCHRONOUS'
        if fn.ret != 'int' and bindc:
            t = t.replace('INTENT(IN)', 'VALUE, INTENT(IN)')
        lines += wrap('%s  %s :: %s%s' % (indent, t, a.name, dims), indent)
    for n in nocheck:
        lines.append('%s  !GCC$ ATTRIBUTES NO_ARG_CHECK :: %s' % (indent, n))
    if fn.ret == 'int':
        if f08:
            lines.append(indent + '  INTEGER, OPTIONAL, INTENT(OUT) :: ierror')
        else:
            lines.append(indent + '  INTEGER, INTENT(OUT) :: ierror')
    lines.append('%sEND %s %s' % (indent, 'SUBROUTINE' if fn.ret == 'int' else 'FUNCTION',
                                  specific))
    return lines


def tkr_sig(fn):
    sig = []
    for a in fargs(fn):
        if a.kind == 'callback':
            continue
        t, d = ftype(a, True)
        sig.append((t.split(',')[0], d))
    return sig


def module_interfaces(fns, f08):
    """Generic interfaces of every bound function; the large-count _c form is
    a second specific of the same generic in mpi_f08 (MPI 4.1 section 19.2)."""
    by_name = {fn.name: fn for fn in fns if not fn.reason}
    out = []
    for prefix in ('MPI_', 'PMPI_'):
        for fn in fns:
            if fn.reason:
                continue
            large = fn.name.endswith('_c') and fn.name[:-2] in by_name
            if fn.name.endswith('_c') and not f08:
                continue
            if large and tkr_sig(fn) != tkr_sig(by_name[fn.name[:-2]]):
                continue  # emitted under its base name
            specifics = [fn]
            base = fn.name
            big = by_name.get(fn.name + '_c')
            if f08 and big and tkr_sig(big) != tkr_sig(fn):
                specifics.append(big)
            out.append('  INTERFACE %s%s' % (prefix, base))
            for s in specifics:
                async_ = s.is_async()
                if fn.ret != 'int' and f08:
                    spec, bindc = '%s%s_f08' % (prefix, s.name), '%s%s' % (prefix, s.name)
                elif f08 and s.has_choice():
                    spec = '%s%s_f08ts' % (prefix, s.name)
                    bindc = spec
                elif f08 and s.name in ('Buffer_detach', 'Comm_detach_buffer'):
                    spec = bindc = '%s%s_f08' % (prefix, s.name)
                else:
                    spec, bindc = '%s%s' % (prefix, s.name), None
                out += interface_body(s, f08, spec, bindc, async_, '    ')
            out.append('  END INTERFACE')
    return out


# ---- Constants ----------------------------------------------------------

# Sentinels: Fortran objects whose addresses the glue recognises.  Order and
# sizes are those of struct zf_sentinels in zf.h (the mpif.h COMMON block).
SENTINELS = [('MPI_BOTTOM', ''), ('MPI_IN_PLACE', ''), ('MPI_BUFFER_AUTOMATIC', ''),
             ('MPI_STATUS_IGNORE', '(MPI_STATUS_SIZE)'),
             ('MPI_STATUSES_IGNORE', '(MPI_STATUS_SIZE,1)'),
             ('MPI_ERRCODES_IGNORE', '(1)'), ('MPI_UNWEIGHTED', '(1)'),
             ('MPI_WEIGHTS_EMPTY', '(1)')]
# Constants the mpi.h macros cannot give (they describe the binding).
FORTRAN_EXTRA = {
    'mpif': [('LOGICAL', 'MPI_SUBARRAYS_SUPPORTED', '.FALSE.'),
             ('LOGICAL', 'MPI_ASYNC_PROTECTS_NONBLOCKING', '.FALSE.')],
    'mpi': [('LOGICAL', 'MPI_SUBARRAYS_SUPPORTED', '.FALSE.'),
            ('LOGICAL', 'MPI_ASYNC_PROTECTS_NONBLOCKING', '.FALSE.')],
    'f08': [('LOGICAL', 'MPI_SUBARRAYS_SUPPORTED', '.TRUE.'),
            ('LOGICAL', 'MPI_ASYNC_PROTECTS_NONBLOCKING', '.TRUE.')],
}
# Predefined callbacks: procedures in libzmpi_fortran.
PREDEF_CALLBACKS = [
    ('MPI_COMM_NULL_COPY_FN', 'MPI_Comm_copy_attr_function'),
    ('MPI_COMM_DUP_FN', 'MPI_Comm_copy_attr_function'),
    ('MPI_COMM_NULL_DELETE_FN', 'MPI_Comm_delete_attr_function'),
    ('MPI_TYPE_NULL_COPY_FN', 'MPI_Type_copy_attr_function'),
    ('MPI_TYPE_DUP_FN', 'MPI_Type_copy_attr_function'),
    ('MPI_TYPE_NULL_DELETE_FN', 'MPI_Type_delete_attr_function'),
    ('MPI_WIN_NULL_COPY_FN', 'MPI_Win_copy_attr_function'),
    ('MPI_WIN_DUP_FN', 'MPI_Win_copy_attr_function'),
    ('MPI_WIN_NULL_DELETE_FN', 'MPI_Win_delete_attr_function'),
    ('MPI_NULL_COPY_FN', 'MPI_Copy_function'),
    ('MPI_DUP_FN', 'MPI_Copy_function'),
    ('MPI_NULL_DELETE_FN', 'MPI_Delete_function'),
    ('MPI_CONVERSION_FN_NULL', 'MPI_Datarep_conversion_function'),
]


def read_consts(path):
    """fconst.txt: lines 'INT name value', 'HANDLE Type name value', 'KIND name n'."""
    consts = []
    for line in open(path):
        f = line.split()
        if not f:
            continue
        consts.append(f)
    return consts


def gen_mpif(consts, fns, path):
    L = ['! mpif.h: the Fortran 77 style interface of zmpi (deprecated by MPI 4.1,',
         '! still common).  DO NOT EDIT: generated by scripts/gen_fortran.py; the',
         '! values come from the C library (src/bindings/fortran/fconst.c).',
         '! Written to compile as fixed and free form source.']
    def decl(t, n, v):
        L.append('      %s %s' % (t, n))
        L.append('      PARAMETER (%s=%s)' % (n, v))
    for c in consts:
        if c[0] == 'KIND':
            decl('INTEGER', c[1], c[2])
    for c in consts:
        if c[0] == 'INT':
            if len(c[1]) + len(c[2]) > 50:
                continue
            decl('INTEGER', c[1], c[2])
        elif c[0] == 'HANDLE':
            decl('INTEGER', c[2], c[3])
        elif c[0] == 'LONG':
            decl('INTEGER(KIND=MPI_ADDRESS_KIND)', c[1], c[2])
    for t, n, v in FORTRAN_EXTRA['mpif']:
        decl(t, n, v)
    for n, dims in SENTINELS:
        L.append('      INTEGER %s%s' % (n, dims))
        L.append('      COMMON /ZMPI_FSENT/ %s' % n)
    L.append('      SAVE /ZMPI_FSENT/')
    L.append('      CHARACTER*1 MPI_ARGV_NULL(1)')
    L.append('      CHARACTER*1 MPI_ARGVS_NULL(1,1)')
    L.append('      COMMON /ZMPI_FSENTC/ MPI_ARGV_NULL, MPI_ARGVS_NULL')
    L.append('      SAVE /ZMPI_FSENTC/')
    for n, _ in PREDEF_CALLBACKS:
        L.append('      EXTERNAL %s' % n)
    for fn in fns:
        if fn.reason or fn.ret == 'int' or fn.name.endswith('_c'):
            continue
        t = 'DOUBLE PRECISION' if fn.ret == 'double' else 'INTEGER(KIND=MPI_ADDRESS_KIND)'
        for p in ('MPI_', 'PMPI_'):
            L.append('      %s %s%s' % (t, p, fn.name.upper()))
            L.append('      EXTERNAL %s%s' % (p, fn.name.upper()))
    for line in L:
        if not line.startswith('!') and len(line) > 72:
            raise Fail('mpif.h line longer than 72 columns: %s' % line)
    write(path, '\n'.join(L) + '\n')


def const_lines(consts, f08):
    L = []
    for c in consts:
        if c[0] == 'KIND':
            L.append('  INTEGER, PARAMETER :: %s = %s' % (c[1], c[2]))
    for c in consts:
        if c[0] == 'INT':
            L.append('  INTEGER, PARAMETER :: %s = %s' % (c[1], c[2]))
        elif c[0] == 'LONG':
            L.append('  INTEGER(KIND=MPI_ADDRESS_KIND), PARAMETER :: %s = %s' % (c[1], c[2]))
        elif c[0] == 'HANDLE':
            if f08:
                L.append('  TYPE(%s), PARAMETER :: %s = %s(%s)' % (c[1], c[2], c[1], c[3]))
            else:
                L.append('  INTEGER, PARAMETER :: %s = %s' % (c[2], c[3]))
    for t, n, v in FORTRAN_EXTRA['f08' if f08 else 'mpi']:
        L.append('  %s, PARAMETER :: %s = %s' % (t, n, v))
    return L


def sentinel_lines(f08):
    pre = 'zmpi_f08_' if f08 else 'zmpi_mpi_'
    L = []
    for n, dims in SENTINELS:
        if f08 and n == 'MPI_STATUS_IGNORE':
            L.append('  TYPE(MPI_Status), BIND(C, NAME="%sstatus_ignore") :: MPI_STATUS_IGNORE'
                     % pre)
        elif f08 and n == 'MPI_STATUSES_IGNORE':
            L.append('  TYPE(MPI_Status), BIND(C, NAME="%sstatuses_ignore") :: '
                     'MPI_STATUSES_IGNORE(1)' % pre)
        else:
            L.append('  INTEGER(C_INT), BIND(C, NAME="%s%s") :: %s%s'
                     % (pre, n[4:].lower(), n, dims))
    L.append('  CHARACTER(KIND=C_CHAR), BIND(C, NAME="%sargv_null") :: MPI_ARGV_NULL(1)' % pre)
    L.append('  CHARACTER(KIND=C_CHAR), BIND(C, NAME="%sargvs_null") :: MPI_ARGVS_NULL(1,1)'
             % pre)
    L.append('  PROTECTED :: ' + ', '.join([n for n, _ in SENTINELS] +
                                          ['MPI_ARGV_NULL', 'MPI_ARGVS_NULL']))
    return L


F08_ABSTRACT = '''
  ABSTRACT INTERFACE
    SUBROUTINE MPI_User_function(invec, inoutvec, len, datatype)
      IMPORT
      TYPE(C_PTR), VALUE :: invec, inoutvec
      INTEGER :: len
      TYPE(MPI_Datatype) :: datatype
    END SUBROUTINE
    SUBROUTINE MPI_User_function_c(invec, inoutvec, len, datatype)
      IMPORT
      TYPE(C_PTR), VALUE :: invec, inoutvec
      INTEGER(KIND=MPI_COUNT_KIND) :: len
      TYPE(MPI_Datatype) :: datatype
    END SUBROUTINE
    SUBROUTINE MPI_Comm_errhandler_function(comm, error_code)
      IMPORT
      TYPE(MPI_Comm) :: comm
      INTEGER :: error_code
    END SUBROUTINE
    SUBROUTINE MPI_Win_errhandler_function(win, error_code)
      IMPORT
      TYPE(MPI_Win) :: win
      INTEGER :: error_code
    END SUBROUTINE
    SUBROUTINE MPI_File_errhandler_function(file, error_code)
      IMPORT
      TYPE(MPI_File) :: file
      INTEGER :: error_code
    END SUBROUTINE
    SUBROUTINE MPI_Session_errhandler_function(session, error_code)
      IMPORT
      TYPE(MPI_Session) :: session
      INTEGER :: error_code
    END SUBROUTINE
    SUBROUTINE MPI_Comm_copy_attr_function(oldcomm, comm_keyval, extra_state, &
        attribute_val_in, attribute_val_out, flag, ierror)
      IMPORT
      TYPE(MPI_Comm) :: oldcomm
      INTEGER :: comm_keyval, ierror
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      LOGICAL :: flag
    END SUBROUTINE
    SUBROUTINE MPI_Comm_delete_attr_function(comm, comm_keyval, attribute_val, &
        extra_state, ierror)
      IMPORT
      TYPE(MPI_Comm) :: comm
      INTEGER :: comm_keyval, ierror
      INTEGER(KIND=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    END SUBROUTINE
    SUBROUTINE MPI_Type_copy_attr_function(oldtype, type_keyval, extra_state, &
        attribute_val_in, attribute_val_out, flag, ierror)
      IMPORT
      TYPE(MPI_Datatype) :: oldtype
      INTEGER :: type_keyval, ierror
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      LOGICAL :: flag
    END SUBROUTINE
    SUBROUTINE MPI_Type_delete_attr_function(datatype, type_keyval, attribute_val, &
        extra_state, ierror)
      IMPORT
      TYPE(MPI_Datatype) :: datatype
      INTEGER :: type_keyval, ierror
      INTEGER(KIND=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    END SUBROUTINE
    SUBROUTINE MPI_Win_copy_attr_function(oldwin, win_keyval, extra_state, &
        attribute_val_in, attribute_val_out, flag, ierror)
      IMPORT
      TYPE(MPI_Win) :: oldwin
      INTEGER :: win_keyval, ierror
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      LOGICAL :: flag
    END SUBROUTINE
    SUBROUTINE MPI_Win_delete_attr_function(win, win_keyval, attribute_val, &
        extra_state, ierror)
      IMPORT
      TYPE(MPI_Win) :: win
      INTEGER :: win_keyval, ierror
      INTEGER(KIND=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    END SUBROUTINE
    SUBROUTINE MPI_Copy_function(oldcomm, keyval, extra_state, attribute_val_in, &
        attribute_val_out, flag, ierror)
      IMPORT
      TYPE(MPI_Comm) :: oldcomm
      INTEGER :: keyval, extra_state, attribute_val_in, attribute_val_out, ierror
      LOGICAL :: flag
    END SUBROUTINE
    SUBROUTINE MPI_Delete_function(comm, keyval, attribute_val, extra_state, ierror)
      IMPORT
      TYPE(MPI_Comm) :: comm
      INTEGER :: keyval, attribute_val, extra_state, ierror
    END SUBROUTINE
    SUBROUTINE MPI_Grequest_query_function(extra_state, status, ierror)
      IMPORT
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
      TYPE(MPI_Status) :: status
      INTEGER :: ierror
    END SUBROUTINE
    SUBROUTINE MPI_Grequest_free_function(extra_state, ierror)
      IMPORT
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
      INTEGER :: ierror
    END SUBROUTINE
    SUBROUTINE MPI_Grequest_cancel_function(extra_state, complete, ierror)
      IMPORT
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
      LOGICAL :: complete
      INTEGER :: ierror
    END SUBROUTINE
    SUBROUTINE MPI_Datarep_extent_function(datatype, extent, extra_state, ierror)
      IMPORT
      TYPE(MPI_Datatype) :: datatype
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extent, extra_state
      INTEGER :: ierror
    END SUBROUTINE
    SUBROUTINE MPI_Datarep_conversion_function(userbuf, datatype, count, filebuf, &
        position, extra_state, ierror)
      IMPORT
      TYPE(C_PTR), VALUE :: userbuf, filebuf
      TYPE(MPI_Datatype) :: datatype
      INTEGER :: count, ierror
      INTEGER(KIND=MPI_OFFSET_KIND) :: position
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
    END SUBROUTINE
    SUBROUTINE MPI_Datarep_conversion_function_c(userbuf, datatype, count, filebuf, &
        position, extra_state, ierror)
      IMPORT
      TYPE(C_PTR), VALUE :: userbuf, filebuf
      TYPE(MPI_Datatype) :: datatype
      INTEGER(KIND=MPI_COUNT_KIND) :: count
      INTEGER(KIND=MPI_OFFSET_KIND) :: position
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
      INTEGER :: ierror
    END SUBROUTINE
  END INTERFACE
'''

SIZEOF = '''
  INTERFACE MPI_Sizeof
    MODULE PROCEDURE zmpi_sizeof
  END INTERFACE
  INTERFACE PMPI_Sizeof
    MODULE PROCEDURE zmpi_sizeof
  END INTERFACE
'''
SIZEOF_BODY = '''
  ! MPI_SIZEOF (deprecated in MPI 4.1): the storage size of x in bytes.
  SUBROUTINE zmpi_sizeof(x, size, ierror)
    CLASS(*), DIMENSION(..), INTENT(IN) :: x
    INTEGER, INTENT(OUT) :: size
    INTEGER%s :: ierror
    size = INT(STORAGE_SIZE(x) / 8)
    %sierror = MPI_SUCCESS
  END SUBROUTINE
'''

SYNC_REG = '''
  INTERFACE MPI_F_sync_reg
    SUBROUTINE MPI_F_sync_reg(buf)
      %s
      %s :: buf%s
    END SUBROUTINE
  END INTERFACE
'''


def gen_mpi_module(consts, fns, path):
    L = ['! Module mpi of zmpi.  DO NOT EDIT: generated by scripts/gen_fortran.py from',
         '! include/mpi.h; constants from the C library (src/bindings/fortran/fconst.c).',
         'MODULE mpi',
         '  USE, INTRINSIC :: ISO_C_BINDING, ONLY : C_INT, C_CHAR, C_PTR',
         '  IMPLICIT NONE',
         '  PRIVATE :: C_INT, C_CHAR, C_PTR']
    L += const_lines(consts, False)
    L += sentinel_lines(False)
    L.append('  EXTERNAL :: ' + ', '.join(n for n, _ in PREDEF_CALLBACKS))
    L += module_interfaces(fns, False)
    L.append(SYNC_REG % ('!GCC$ ATTRIBUTES NO_ARG_CHECK :: buf', 'TYPE(*)', '(*)'))
    L.append(SIZEOF)
    L.append('CONTAINS')
    L.append(SIZEOF_BODY % ('', ''))
    L.append('END MODULE mpi')
    write(path, '\n'.join(L) + '\n')


def gen_f08_module(consts, fns, path):
    kinds = sorted(set(c[1] for c in consts if c[0] == 'HANDLE'))
    L = ['! Module mpi_f08 of zmpi.  DO NOT EDIT: generated by scripts/gen_fortran.py',
         '! from include/mpi.h; constants from the C library (fconst.c).',
         'MODULE mpi_f08',
         '  USE, INTRINSIC :: ISO_C_BINDING, ONLY : C_INT, C_CHAR, C_PTR',
         '  IMPLICIT NONE',
         '  PRIVATE :: C_INT, C_CHAR',
         '  PUBLIC :: C_PTR']
    for c in consts:
        if c[0] == 'KIND':
            L.append('  INTEGER, PARAMETER :: %s = %s' % (c[1], c[2]))
    for k in kinds:
        L += ['  TYPE, BIND(C) :: %s' % k, '    INTEGER :: MPI_VAL', '  END TYPE %s' % k]
    ssize = [c for c in consts if c[0] == 'INT' and c[1] == 'MPI_STATUS_SIZE'][0][2]
    L += ['  TYPE, BIND(C) :: MPI_Status',
          '    INTEGER :: MPI_SOURCE, MPI_TAG, MPI_ERROR',
          '    INTEGER, PRIVATE :: zmpi_internal(%d)' % (int(ssize) - 3),
          '  END TYPE MPI_Status']
    L += [l for l in const_lines(consts, True) if 'KIND =' not in l.split('::')[1][:20]
          or 'PARAMETER :: MPI_' not in l]
    L += sentinel_lines(True)
    L.append(F08_ABSTRACT)
    L.append('  INTERFACE')
    for n, ai in PREDEF_CALLBACKS:
        L.append('    PROCEDURE(%s) :: %s' % (ai, n)) if False else None
    L.append('  END INTERFACE')
    L.append('  PROCEDURE(MPI_Comm_copy_attr_function) :: MPI_COMM_NULL_COPY_FN, MPI_COMM_DUP_FN')
    L.append('  PROCEDURE(MPI_Comm_delete_attr_function) :: MPI_COMM_NULL_DELETE_FN')
    L.append('  PROCEDURE(MPI_Type_copy_attr_function) :: MPI_TYPE_NULL_COPY_FN, MPI_TYPE_DUP_FN')
    L.append('  PROCEDURE(MPI_Type_delete_attr_function) :: MPI_TYPE_NULL_DELETE_FN')
    L.append('  PROCEDURE(MPI_Win_copy_attr_function) :: MPI_WIN_NULL_COPY_FN, MPI_WIN_DUP_FN')
    L.append('  PROCEDURE(MPI_Win_delete_attr_function) :: MPI_WIN_NULL_DELETE_FN')
    L.append('  PROCEDURE(MPI_Copy_function) :: MPI_NULL_COPY_FN, MPI_DUP_FN')
    L.append('  PROCEDURE(MPI_Delete_function) :: MPI_NULL_DELETE_FN')
    L.append('  PROCEDURE(MPI_Datarep_conversion_function) :: MPI_CONVERSION_FN_NULL')
    L += module_interfaces(fns, True)
    L.append(SYNC_REG % ('IMPORT', 'TYPE(*), DIMENSION(..)', '') .replace(
        'SUBROUTINE MPI_F_sync_reg(buf)', 'SUBROUTINE MPI_F_sync_reg(buf) BIND(C, NAME="MPI_F_sync_reg_f08ts")'))
    L.append(SIZEOF)
    # == and /= between handles (MPI 4.1 section 19.3.5).
    eq = []
    for k in kinds:
        eq.append(k)
    L.append('  INTERFACE OPERATOR(==)')
    L.append('    MODULE PROCEDURE ' + ', '.join('zmpi_eq_%s' % k[4:].lower() for k in kinds))
    L.append('  END INTERFACE')
    L.append('  INTERFACE OPERATOR(/=)')
    L.append('    MODULE PROCEDURE ' + ', '.join('zmpi_ne_%s' % k[4:].lower() for k in kinds))
    L.append('  END INTERFACE')
    L.append('  PRIVATE :: ' + ', '.join('zmpi_eq_%s, zmpi_ne_%s' % (k[4:].lower(),
                                                                   k[4:].lower()) for k in kinds))
    L.append('CONTAINS')
    for k in kinds:
        s = k[4:].lower()
        for op, rel in (('eq', '=='), ('ne', '/=')):
            L += ['  ELEMENTAL LOGICAL FUNCTION zmpi_%s_%s(a, b)' % (op, s),
                  '    TYPE(%s), INTENT(IN) :: a, b' % k,
                  '    zmpi_%s_%s = a%%MPI_VAL %s b%%MPI_VAL' % (op, s, rel),
                  '  END FUNCTION']
    L.append(SIZEOF_BODY % (', OPTIONAL, INTENT(OUT)', 'IF (PRESENT(ierror)) '))
    L.append('END MODULE mpi_f08')
    write(path, '\n'.join(l for l in L if l is not None) + '\n')


# ---- The names list for the constants program ---------------------------

# Macros that are not Fortran constants: C-only objects and sentinels (the
# sentinels are Fortran objects of their own, SENTINELS).
CONST_SKIP = re.compile(r'^(MPI_F_STATUS(ES)?_IGNORE|MPI_F08_STATUS(ES)?_IGNORE|'
                        r'MPI_STATUS(ES)?_IGNORE|MPI_IN_PLACE|MPI_BOTTOM|'
                        r'MPI_BUFFER_AUTOMATIC|MPI_UNWEIGHTED|MPI_WEIGHTS_EMPTY|'
                        r'MPI_T_.*_NULL|MPI_T_PVAR_ALL_HANDLES|MPI_CONVERSION_FN_NULL|'
                        r'MPI_.*_FN|MPI_VERSION_STRING)$')


def gen_names(macros, path):
    out = ['/* DO NOT EDIT: generated by scripts/gen_fortran.py: the object-like',
           ' * MPI_ macros of include/mpi.h that become Fortran constants. */']
    for m in macros:
        if CONST_SKIP.match(m):
            continue
        out.append('ZF_CONST(%s)' % m)
    write(path, '\n'.join(out) + '\n')


def write(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, 'w') as f:
        f.write(text)


def main(argv):
    if len(argv) < 3:
        print('usage: gen_fortran.py names MPI_H OUT.h | sources MPI_H FCONST.txt OUTDIR',
              file=sys.stderr)
        return 2
    try:
        if argv[1] == 'names':
            gen_names(parse_macros(argv[2]), argv[3])
            return 0
        fns = parse_header(argv[2])
        for fn in fns:
            classify(fn)
        consts = read_consts(argv[3])
        outdir = argv[4]
        gen_glue(fns, outdir + '/zf_glue.c')
        gen_mpif(consts, fns, outdir + '/include/mpif.h')
        gen_mpi_module(consts, fns, outdir + '/mpi.f90')
        gen_f08_module(consts, fns, outdir + '/mpi_f08.f90')
        with open(outdir + '/left_out.txt', 'w') as f:
            for fn in fns:
                if fn.reason:
                    f.write('MPI_%s: %s\n' % (fn.name, fn.reason))
    except Fail as e:
        print('gen_fortran.py: error: %s' % e, file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
