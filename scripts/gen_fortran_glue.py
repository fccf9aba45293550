"""gen_fortran_glue.py: the C glue of the Fortran bindings (zf_glue.c and
the prototypes of the hand-written glue, zf_glue_hand.h), for gen_fortran.py.
"""
import re

from gen_fortran_model import Fail, HANDLES, HANDLE_NULL, POST_CALL, write

# ---- C glue -------------------------------------------------------------

def cparam(a):
    """The parameter of the mpif.h/mpi glue (gfortran passes by reference)."""
    k = a.kind
    if k == 'callback':
        return 'void (*%s)(void)' % a.name
    if k in ('extra', 'attr_out'):
        return '%s *%s' % ('MPI_Aint' if a.fkind else 'MPI_Fint', a.name)
    if k in ('choice', 'address', 'baseptr'):
        return '%svoid *%s' % ('const ' if a.const else '', a.name)
    if k in ('str_in', 'str_arr_in', 'str_arr2_in'):
        return 'const char *%s' % a.name
    if k == 'str_out':
        return 'char *%s' % a.name
    if k == 'attr_in':
        return 'const %s *%s' % ('MPI_Aint' if a.fkind else 'MPI_Fint', a.name)
    if k == 'f08status':
        return '%sMPI_F08_status *%s' % ('const ' if a.const else '', a.name)
    if k == 'real_in':
        return 'const double *%s' % a.name
    if a.fkind:
        return '%s *%s' % (a.ctype, a.name)
    return 'MPI_Fint *%s' % a.name


def hidden_lens(fn):
    return ['size_t %s_len' % a.name for a in fn.args
            if a.kind in ('str_in', 'str_out', 'str_arr_in', 'str_arr2_in')]


def f77_proto(fn, name):
    params = [cparam(a) for a in fn.args if a.kind != 'argv']
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
    for kinds, conv in CONVERTERS:
        if a.kind in kinds:
            conv(fn, a, b, f08)
            return
    raise Fail('%s: no glue for argument kind %s' % (fn.cname, a.kind))


def conv_scalar(fn, a, b, f08):
    """Integers, LOGICALs, indices, weights, addresses: passed through or
    converted in place."""
    k, n = a.kind, a.name
    c = 'c_' + n
    if k == 'int_in':
        b.callargs.append('(int)*%s' % n if not a.fkind else '*%s' % n)
    elif k == 'real_in':
        b.callargs.append('*' + n)
    elif k == 'logical_in':
        b.callargs.append('*%s != 0' % n)
    elif k in ('int_out', 'int_arr', 'logical_arr', 'index_arr'):
        b.callargs.append('(int (*)[3])%s' % n if a.dims == '[][3]' else n)
        if k == 'index_arr':
            b.post.append('if (rc == MPI_SUCCESS) zf_shift_indices(%s, outcount);' % n)
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
    elif k in ('choice', 'address'):
        b.callargs.append('zb_%s' % n if f08 else 'zf_buf((void *)%s)' % n)
    elif k == 'attr_in':
        b.callargs.append('(void *)(intptr_t)*%s' % n)
    else:  # fstatus, f08status, baseptr: the C function takes them as they are
        b.callargs.append(n)


def conv_handle(fn, a, b, f08):
    """A handle read (by value) or written (through a pointer)."""
    n, c = a.name, 'c_' + a.name
    h = HANDLES[a.ctype]
    if a.kind == 'handle_in':
        b.callargs.append('zf_%s_f2c(*%s)' % (h, n))
    elif a.intent == 'inout':
        # A request that completed (or was freed) releases what the glue
        # kept for it, under its Fortran index, before the index changes.
        rel = 'if (zf_nkept()) zf_release(*%s); ' % n if a.ctype == 'MPI_Request' else ''
        b.decl.append('%s %s = zf_%s_f2c(*%s), %s0 = %s;' % (a.ctype, c, h, n, c, c))
        b.callargs.append('&' + c)
        # A handle the call changed is mostly the null one (a completed or
        # freed request), whose Fortran index is 0 in every kind: without
        # a call into the library (a wait's c2f, 10 instructions).
        b.post.append('if (%s != %s0) { %s*%s = %s == %s ? 0 : PMPI_%s_c2f(%s); }'
                      % (c, c, rel, n, c, HANDLE_NULL[a.ctype], h, c))
    else:
        b.decl.append('%s %s = %s;' % (a.ctype, c, HANDLE_NULL[a.ctype]))
        b.callargs.append('&' + c)
        b.post.append('*%s = PMPI_%s_c2f(%s);' % (n, h, c))


def conv_handle_arr(fn, a, b, f08):
    """An array of handles, converted element by element into a temporary
    that a nonblocking call keeps until its request completes."""
    n, c = a.name, 'c_' + a.name
    h = HANDLES[a.ctype]
    ln = 'n_' + n
    length = re.sub(r'\b(count|incount|max_datatypes)\b', r'(int)*\1', a.length)
    b.decl.append('%s zs_%s[ZF_SMALL], *%s = zs_%s;' % (a.ctype, n, c, n))
    skip = ''
    if a.skip_if:
        skip = '%s == MPI_IN_PLACE ? 0 : ' % ('zb_' + a.skip_if if f08 else
                                              'zf_buf((void *)%s)' % a.skip_if)
    b.pre.append('int %s = %s%s;' % (ln, skip, length))
    # A nonblocking call's C side reads the array until completion: never
    # on this function's stack, then.
    small = '0' if fn.is_async() else 'sizeof zs_%s' % n
    b.pre.append('%s = zf_tmp(zs_%s, %s, %s, sizeof *%s);' % (c, n, small, ln, c))
    b.pre.append('if (!%s) { rc = zf_oom("%s"); goto out; }' % (c, fn.cname))
    if a.intent in ('in', 'inout'):
        b.pre.append('for (int i = 0; i < %s; i++) %s[i] = zf_%s_f2c(%s[i]);'
                     % (ln, c, h, n))
    else:
        b.pre.append('for (int i = 0; i < %s; i++) %s[i] = %s;'
                     % (ln, c, HANDLE_NULL[a.ctype]))
    b.callargs.append(c)
    if a.intent == 'inout':
        # Compared as Fortran indices: the C handle of a freed request
        # need not be found from its old index any more.
        rel = ''
        if a.ctype == 'MPI_Request':
            rel = ' if (zf_nkept()) zf_release(%s[i]);' % n
        b.post.append('for (int i = 0; i < %s; i++) { MPI_Fint f = PMPI_%s_c2f(%s[i]); '
                      'if (f != %s[i]) {%s %s[i] = f; } }' % (ln, h, c, n, rel, n))
    elif a.intent == 'out':
        b.post.append('for (int i = 0; i < %s; i++) %s[i] = PMPI_%s_c2f(%s[i]);'
                      % (ln, n, h, c))
    if fn.is_async():
        b.free.append('if (rc == MPI_SUCCESS && %s != zs_%s) zf_keep(*request, %s); '
                      'else zf_tmp_free(%s, zs_%s);' % (c, n, c, c, n))
    else:
        b.free.append('zf_tmp_free(%s, zs_%s);' % (c, n))


def conv_status(fn, a, b, f08):
    """One status: MPI_STATUS_IGNORE of any binding, or converted."""
    k, n, c = a.kind, a.name, 'c_' + a.name
    b.decl.append('MPI_Status %s = {0};' % c)
    # Every status goes in as the caller's Fortran status, so that fields
    # the call leaves alone (a send's source, tag and count) keep their
    # Fortran values instead of becoming zeros.
    b.pre.append('if (!zf_status_ignored(%s)) zf_status_f2c(%s, &%s);' % (n, n, c))
    b.callargs.append('zf_status_ignored(%s) ? MPI_STATUS_IGNORE : &%s' % (n, c))
    if k == 'status_out':
        # A call that returns one status leaves its MPI_ERROR as it was
        # (MPI 4.1 section 3.2.5), whatever the C side wrote there.
        b.post.append('if (!zf_status_ignored(%s)) zf_status_c2f_keep_error(&%s, %s);'
                      % (n, c, n))
    elif k != 'status_in':
        b.post.append('if (!zf_status_ignored(%s)) zf_status_c2f(&%s, %s);' % (n, c, n))


def conv_status_arr(fn, a, b, f08):
    """An array of statuses (or MPI_STATUSES_IGNORE), converted after the call."""
    n, c = a.name, 'c_' + a.name
    ln = 'n_' + n
    length = re.sub(r'\b(count|incount)\b', r'(int)*\1', a.length)
    b.decl.append('MPI_Status zs_%s[ZF_SMALL], *%s = zs_%s;' % (n, c, n))
    b.pre.append('int %s = zf_statuses_ignored(%s) ? 0 : %s;' % (ln, n, length))
    b.pre.append('%s = zf_tmp(zs_%s, sizeof zs_%s, %s, sizeof *%s);' % (c, n, n, ln, c))
    b.pre.append('if (!%s) { rc = zf_oom("%s"); goto out; }' % (c, fn.cname))
    b.pre.append('for (int i = 0; i < %s; i++) zf_status_f2c(%s + (size_t)i * '
                 'MPI_STATUS_SIZE, &%s[i]);' % (ln, n, c))
    b.callargs.append('zf_statuses_ignored(%s) ? MPI_STATUSES_IGNORE : %s' % (n, c))
    b.post.append('for (int i = 0; i < %s; i++) zf_status_c2f(&%s[i], %s + '
                  '(size_t)i * MPI_STATUS_SIZE);' % (ln, c, n))
    b.free.append('zf_tmp_free(%s, zs_%s);' % (c, n))


def conv_str(fn, a, b, f08):
    """A string: trimmed and terminated going in; copied and blank-padded
    coming out (Fortran's hidden length, or the CFI descriptor's)."""
    n, c = a.name, 'c_' + a.name
    b.decl.append('char zs_%s[ZF_STR], *%s = zs_%s;' % (n, c, n))
    # Info keys and values lose their leading blanks too (the standard's
    # info chapter: in Fortran "leading and trailing spaces are stripped").
    conv = ('zf_info_str_in' if fn.name.startswith('Info_') and n in ('key', 'value')
            else 'zf_str_in')
    if a.kind == 'str_in' and f08:
        b.pre.append('%s = %s((const char *)%s->base_addr, %s->elem_len, '
                     'zs_%s, sizeof zs_%s);' % (c, conv, n, n, n, n))
    elif a.kind == 'str_in':
        b.pre.append('%s = %s(%s, %s_len, zs_%s, sizeof zs_%s);' % (c, conv, n, n, n, n))
    else:
        b.pre.append('%s = zf_tmp(zs_%s, sizeof zs_%s, (long)(%s), 1);'
                     % (c, n, n, a.length))
    b.pre.append('if (!%s) { rc = zf_oom("%s"); goto out; }' % (c, fn.cname))
    if a.kind == 'str_out':
        b.pre.append('%s[0] = 0;' % c)
        # With a flag (MPI_Info_get ...), a value not found leaves the
        # Fortran string as it was.
        found = ' && c_flag' if any(x.name == 'flag' and x.kind == 'logical_out'
                                    for x in fn.args) else ''
        b.post.append('if (rc == MPI_SUCCESS%s) zf_str_out(%s, %s_len, %s);'
                      % (found, n, n, c))
    b.callargs.append(c)
    b.free.append('zf_tmp_free(%s, zs_%s);' % (c, n))


CONVERTERS = [
    (('int_in', 'real_in', 'logical_in', 'int_out', 'int_arr', 'logical_arr', 'index_arr',
      'index_out', 'logical_out', 'weights', 'choice', 'address', 'attr_in', 'fstatus',
      'f08status', 'baseptr'), conv_scalar),
    (('handle_in', 'handle_out'), conv_handle),
    (('handle_arr',), conv_handle_arr),
    (('status_in', 'status_out', 'status_inout'), conv_status),
    (('status_arr',), conv_status_arr),
    (('str_in', 'str_out'), conv_str),
]


def emit_body(fn, b, cname, out):
    for d in b.decl:
        out.append('    ' + d)
    if fn.ret != 'int':
        out.append('    return %s(%s);' % (fn.pname, ', '.join(b.callargs)))
        return
    out.append('    int rc = MPI_SUCCESS;')
    for p in b.pre:
        out.append('    ' + p)
    out.append('    rc = %s(%s);' % (fn.pname, ', '.join(b.callargs)))
    for p in b.post:
        out.append('    ' + p)
    if any('goto out;' in p for p in b.pre):
        out.append('out:')
    for p in b.free:
        out.append('    ' + p)
    out.append('    if (ierror)')
    out.append('        *ierror = rc;')


def needs_request_var(fn):
    return any(a.kind == 'handle_arr' and fn.is_async() for a in fn.args)


def gen_f77(fn, out):
    name = fn.f77name
    b = Body()
    for a in fn.args:
        conv_arg(fn, a, b)
    out.append('/* %s */' % fn.cname)
    fast = fast_path(fn, False, name)
    out.append(('ZF_SLOW ' + f77_proto(fn, 'zf_slow_' + name)) if fast else
               f77_proto(fn, name))
    out.append('{')
    if needs_request_var(fn):
        b.post.insert(0, 'if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(*c_request);')
    fix_request_arg(fn, b)
    fix_comm_var(fn, b)
    b.post += POST_CALL.get(fn.cname, [])
    emit_body(fn, b, name, out)
    out.append('}')
    if fast:
        emit_fast(fast, f77_proto(fn, name), out)
    out.append('ZF_WEAK(%s, %s)' % (name, name[1:]))  # pmpi_x_ -> mpi_x_
    out.append('')


# ---- Fast paths ---------------------------------------------------------
#
# A glue function whose arguments have the shapes below first tries the
# common case inline: buffers that are no sentinel (and, in mpi_f08,
# scalars or contiguous rank-1 arrays), predefined datatypes, operations
# and communicators from the table of their C values, a status that is
# MPI_STATUS_IGNORE or laid out as the C one (it is then passed to the C
# call as it is).  When any test fails it calls the general form of the
# function (zf_slow_<name>, not inlined), so that the fast path keeps no
# registers for the general one.  Everything is still checked by the C
# call, which reports errors as it does for C programs.

# Argument kinds the fast path passes through as the general form does
# (conversions without temporaries: conv_arg with nothing in pre or free).
FAST_PLAIN = ('int_in', 'logical_in', 'int_out', 'logical_out', 'index_out', 'handle_out',
              'handle_in', 'f08status', 'fstatus', 'baseptr')
# Handle kinds with a table of predefined values (filled by predef_f2c).
FAST_HANDLES = set()


def fast_arg(fn, a, f08, fp):
    """Adds argument a to fast path fp: its test (conds, with the variables
    it sets in cdecl), its C argument (callargs) and what comes before and
    after the C call (decl, post).  False if its shape has no fast form."""
    n, k = a.name, a.kind
    if k == 'choice' and f08:
        fp['conds'].append('zf_cdesc_plain(%s)' % n)
        fp['callargs'].append('zf_cdesc_addr(%s)' % n)
    elif k == 'address' and f08:
        fp['conds'].append('!zf_is_sentinel(%s->base_addr)' % n)
        fp['callargs'].append('%s->base_addr' % n)
    elif k in ('choice', 'address'):
        fp['conds'].append('!zf_is_sentinel(%s)' % n)
        fp['callargs'].append('(void *)%s' % n)
    elif k == 'handle_in' and a.ctype in FAST_HANDLES:
        # Tested first, converted once every test passed: the failing
        # branches then still have every argument where the caller put it
        # for the tail call of the general form, and GCC needs no
        # callee-saved registers to keep copies.
        h = HANDLES[a.ctype]
        fp['conds'].append('zf_%s_fast(*%s)' % (h, n))
        fp['callargs'].append('zf_%s_pre(*%s)' % (h, n))
    elif k == 'status_out':
        fp['conds'].append('zf_status_fast(%s, %d)' % (n, 1 if f08 else 0))
        fp['callargs'].append('zf_status_c(%s, %d)' % (n, 1 if f08 else 0))
        fp['status'] = True
        if c_writes_error(fn):
            # A call that returns one status leaves its MPI_ERROR alone (as
            # conv_status's general form does), whatever the C call wrote.
            fp['decl'].append('MPI_Status *c_%s = zf_status_c(%s, %d);' % (n, n, 1 if f08 else 0))
            fp['decl'].append('MPI_Fint zk_%s = zf_status_error(c_%s);' % (n, n))
            fp['post'].append('zf_status_set_error(c_%s, zk_%s);' % (n, n))
    elif k in FAST_PLAIN:
        b = Body()
        conv_arg(fn, a, b, f08)
        if b.pre or b.free:
            return False
        fp['decl'] += b.decl
        fp['callargs'] += b.callargs
        fp['post'] += b.post
    else:
        return False
    return True


def c_writes_error(fn):
    """Whether the C function of fn may write the MPI_ERROR field of the one
    status it returns, which Fortran must then put back: only the
    completion calls on requests do (an empty status's MPI_SUCCESS, a
    generalized request's code: src/mpi/request.c).  Receives, probes and
    file accesses leave it alone (zm_mpi_status_set), so their fast paths
    pass the Fortran status to C as it is and end in a tail call."""
    return any(a.ctype == 'MPI_Request' for a in fn.args)


def emit_fast(fast, proto, out):
    """Appends fast path lines (zf_call_<name> first, if any, then the
    body from '{') under prototype proto."""
    i = max(k for k, line in enumerate(fast) if line == '{')
    out += fast[:i]
    out.append(proto)
    out += fast[i:]


def new_fast():
    """An empty record of what fast_arg adds for the fast path."""
    return {'conds': [], 'cdecl': [], 'decl': [], 'callargs': [], 'post': [], 'status': False}


def slow_params(fn, f08):
    """The names the fast form passes on to zf_slow_<name>: its own
    parameters (mpi_f08's by-value ones under their zv_ names), ierror,
    and in mpif.h and module mpi the hidden string lengths."""
    params = [('zv_' if f08 and f08_by_value(fn, a) else '') + a.name
              for a in fn.args if a.kind != 'argv'] + ['ierror']
    if not f08:
        params += [h.split()[-1] for h in hidden_lens(fn)]
    return params


def fast_path(fn, f08, name):
    """The lines of the fast form of glue function name (its body from
    '{' to '}', after zf_call_<name> if it has one), which calls
    zf_slow_<name> when its tests fail; None when fn has no argument the
    fast path helps with (f08: a choice buffer; mpif.h and mpi: a status)
    or one it cannot take."""
    if fn.ret != 'int' or fn.hand or needs_request_var(fn):
        return None
    if not (fn.has_choice() if f08 else any(a.kind == 'status_out' for a in fn.args) or
            fn.cname in BIND_ENTRIES):
        return None
    if fn.cname in BIND_ENTRIES:
        return bind_fast_path(fn, name, f08)
    fp = new_fast()
    for a in fn.args:
        if not fast_arg(fn, a, f08, fp):
            return None
    params = slow_params(fn, f08)
    out = ['{'] + (f08_value_ptrs(fn) if f08 else [])
    out += ['    ' + d for d in fp['cdecl']]
    cond = ' &&\n                  '.join(fp['conds'])
    out.append('    if (ZF_LIKELY(%s)) {' % cond)
    call = '%s(%s)' % (fn.pname, ', '.join(fp['callargs']))
    helper = None
    if not fp['decl'] and not fp['post'] and all(a.kind in FAST_CALL for a in fn.args):
        # Setting ierror after the C call is done by zf_call_<name>, so
        # that this function ends in tail calls and keeps no register
        # across a call.  (With a status to put MPI_ERROR back into, the
        # completion calls on requests, such a helper costs more than it
        # saves: measured on MPI_Recv when it still needed that.)
        helper = fast_call(fn, name)
        out += ['        if (!ierror) {', '            %s;' % call, '            return;',
                '        }']
        out.append('        zf_call_%s(%s, ierror);' % (name, ', '.join(fp['callargs'])))
    else:
        out += ['        ' + d for d in fp['decl']]
        out.append('        int rc = %s;' % call)
        out += ['        ' + p for p in fp['post']]
        out += ['        if (ierror)', '            *ierror = rc;']
    out += ['        return;', '    }']
    out.append('    zf_slow_%s(%s);' % (name, ', '.join(params)))
    out.append('}')
    return (helper or []) + out


# Glue functions whose fast path calls an entry of the library taking the
# Fortran handles of its predefined-handle kinds (datatype, communicator)
# as they are, and ierror (src/mpi/bind_hooks.h): the library checks a
# predefined datatype's index where it would check the datatype, so the
# glue neither tests nor converts handles.  In mpi_f08 everything but the
# buffer's descriptor passes through in the registers (and stack slots)
# the caller put it in (on x86-64 the fast path is assembly, zf.h's
# ZF_FAST_ASM_FN); mpif.h and module mpi pass their values.
# The nonblocking entries also take the Fortran request (MPI_Fint *) and
# store the new request's index there themselves, with the library's
# conversion inlined; MPI_Wait's reads it and writes it back, and keeps
# the status's MPI_ERROR, so its fast path needs only that no array
# section's copy is kept for any request (zf_nkept).
BIND_ENTRIES = {'MPI_Send': 'zmpi_bind_send', 'MPI_Recv': 'zmpi_bind_recv',
                'MPI_Isend': 'zmpi_bind_isend', 'MPI_Irecv': 'zmpi_bind_irecv',
                'MPI_Wait': 'zmpi_bind_wait', 'MPI_Waitall': 'zmpi_bind_waitall',
                'MPI_Allreduce': 'zmpi_bind_allreduce'}


def bind_fast_path(fn, name, f08):
    """The fast form of glue function name (BIND_ENTRIES): when its buffers
    are plain (mpi_f08: zf_cdesc_plain; else no sentinel) and its status
    can be written as a C one, a tail call of the library's entry with the
    arguments as the ordinary fast path passes them, but handles
    unconverted; else zf_slow_<name>."""
    conds, callargs = [], []
    for a in fn.args:
        if a.kind == 'handle_in' and a.ctype in FAST_HANDLES:
            callargs.append('*%s' % a.name)
            continue
        if a.kind in ('handle_out', 'handle_arr') and a.ctype == 'MPI_Request':
            callargs.append(a.name)
            if a.intent == 'inout' or a.kind == 'handle_arr':
                conds.append('!zf_nkept()')
            continue
        if a.kind == 'status_arr':
            conds.append('zf_statuses_fast(%s)' % a.name)
            callargs.append('zf_statuses_c(%s)' % a.name)
            continue
        fp = new_fast()
        ok = fast_arg(fn, a, f08, fp)
        if a.kind == 'status_out':
            # The entry keeps MPI_ERROR itself (c_writes_error's post step).
            fp['decl'], fp['post'] = [], []
        if not ok or fp['cdecl'] or fp['decl'] or fp['post']:
            raise Fail('%s: argument %s does not suit %s' % (fn.cname, a.name,
                                                             BIND_ENTRIES[fn.cname]))
        # In mpi_f08 every status is written as a C one (fast_arg's test
        # is a constant there).
        if a.kind == 'choice' or (a.kind == 'status_out' and not f08):
            conds += fp['conds']
        callargs += fp['callargs']
    params = slow_params(fn, f08)
    out = ['{'] + (f08_value_ptrs(fn) if f08 else [])
    out.append('    if (ZF_LIKELY(%s)) {' % ' &&\n                  '.join(conds))
    out.append('        %s(%s, ierror);' % (BIND_ENTRIES[fn.cname], ', '.join(callargs)))
    out += ['        return;', '    }']
    out.append('    zf_slow_%s(%s);' % (name, ', '.join(params)))
    out.append('}')
    return out


# Kinds whose fast form is a C value computed before the call, with
# nothing to do after it but setting ierror (fast_call).
FAST_CALL = ('choice', 'address', 'handle_in', 'int_in', 'logical_in', 'f08status',
             'fstatus', 'baseptr', 'status_out')


def fast_call(fn, name):
    """The definition of zf_call_<name>: the C call of the fast path with
    the C arguments (named as in mpi.h), setting ierror."""
    return ['ZF_SLOW void zf_call_%s(%s, MPI_Fint *ierror)'
            % (name, ', '.join(a.ctext for a in fn.args)), '{',
            '    *ierror = %s(%s);' % (fn.pname, ', '.join(a.name for a in fn.args)), '}']


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
            b.post = [p for p in b.post
                      if not p.startswith('*request = PMPI_Request_c2f(c_request)')]


def fix_comm_var(fn, b):
    """The w-collectives need the C communicator before the call."""
    if any(a.skip_if is not None or (a.length and 'c_comm' in a.length) for a in fn.args):
        b.decl.insert(0, 'MPI_Comm c_comm = zf_Comm_f2c(*comm);')


def f08_by_value(fn, a):
    """Whether the mpi_f08 form of fn takes argument a by value: the
    scalar integers and handles that are only read, declared VALUE in the
    module's interface (gen_fortran_f90.py, the same rule), of the generated
    glue (hand-written glue takes every argument by reference).  gfortran
    then passes them in the registers where the C function takes them, so
    the fast path neither loads them nor moves them before its tail call,
    and the caller passes constants (MPI_COMM_WORLD, MPI_DOUBLE_PRECISION,
    a count of 1) as immediates instead of storing them into temporaries."""
    return not fn.hand and a.kind in ('int_in', 'handle_in')


def f08_value_type(a):
    """The C type of a by-value argument (f08_by_value)."""
    return a.ctype if a.kind == 'int_in' and a.fkind else 'MPI_Fint'


def f08_value_ptrs(fn):
    """Declarations giving the by-value arguments of an mpi_f08 glue
    function (named zv_<name>) the names and pointer types the conversions
    (conv_arg, fast_arg) use for by-reference ones."""
    return ['    %s *%s = &zv_%s;' % (f08_value_type(a), a.name, a.name)
            for a in fn.args if f08_by_value(fn, a)]


def f08ts_proto(fn, name):
    params = []
    for a in fn.args:
        if a.kind in ('choice', 'address'):
            params.append('CFI_cdesc_t *%s' % a.name)
        elif a.kind == 'str_in':
            params.append('CFI_cdesc_t *%s' % a.name)
        elif f08_by_value(fn, a):
            params.append('%s zv_%s' % (f08_value_type(a), a.name))
        else:
            params.append(cparam(a))
    params.append('MPI_Fint *ierror')
    return 'void %s(%s)' % (name, ', '.join(params))


# The object whose error handler hears about a bad choice buffer, by the
# C type of the call's first handle argument (MPI 4.1 section 9.3).
ERROR_TARGETS = {'MPI_Comm': 'ZF_ON_COMM', 'MPI_Win': 'ZF_ON_WIN', 'MPI_File': 'ZF_ON_FILE'}


def error_target(fn):
    """zf_cbuf_in's error target arguments for fn: the kind of object and
    its Fortran handle, or MPI_COMM_WORLD when fn has none."""
    for a in fn.args:
        if a.kind == 'handle_in' and a.ctype in ERROR_TARGETS:
            return '%s, *%s' % (ERROR_TARGETS[a.ctype], a.name)
    return 'ZF_ON_WORLD, 0'


# Collectives whose buffer (by name) holds one (count, datatype) block per
# peer, the blocks one after the other: the section's datatype must then
# have the blocks' distance in memory as its extent (ZF_PEER).
PER_PEER = {'Gather': ('recvbuf',), 'Scatter': ('sendbuf',), 'Allgather': ('recvbuf',),
            'Alltoall': ('sendbuf', 'recvbuf'), 'Neighbor_allgather': ('recvbuf',),
            'Neighbor_alltoall': ('sendbuf', 'recvbuf')}
# Reductions whose sendbuf and recvbuf, sharing one (count, datatype), may
# become the in-place form when no one datatype describes both (ZF_INPLACE;
# MPI_Reduce at its root only, ZF_ROOTED).  Not their persistent forms,
# which would have to copy at every MPI_Start.
IN_PLACE_FORMS = ('Allreduce', 'Reduce', 'Scan', 'Exscan')


def base_name(fn, init=True):
    """fn's name without the large-count _c, the nonblocking I and (init)
    the persistent _init: MPI_Ialltoall_init_c is Alltoall."""
    base = re.sub(r'^I(?=[a-z])|_c$', '', fn.name)
    if init:
        base = re.sub(r'_init$', '', base)
    return base[:1].upper() + base[1:]


def split_part(fn):
    """'begin' or 'end' for the parts of a split collective (file), else
    None.  zmpi's split collectives do all their work in the _begin call
    (src/mpi/file_coll.c, split_begin), and _end ignores its buffer, so
    the glue treats a _begin's buffer as a blocking call's (a section no
    datatype describes is copied in and back around the call) and passes
    an _end's on as its address.  The standard only forbids the program
    to touch the buffer between the two calls, which this respects."""
    m = re.search(r'_(begin|end)(_c)?$', fn.name)
    return m.group(1) if m and fn.name.startswith('File_') else None


def keep_target(fn):
    """How an asynchronous call of fn hands the copies of its sections to
    the library (zf_cbuf_keep): (ZF_KEEP_REQ, its C request) for calls
    that make a request, (ZF_KEEP_WIN, its C window) for one-sided calls
    without one (every other asynchronous call but the split collectives,
    which work as blocking ones, has one).  Partitioned requests work on
    a copy too: the library refreshes it at every MPI_Pready* and writes it
    back at every MPI_Parrived that says yes, besides starts and
    completions (src/mpi/part.c)."""
    if not fn.is_async() or split_part(fn):
        return None
    for a in fn.args:
        if a.name == 'request' and a.kind == 'handle_out':
            return ('ZF_KEEP_REQ', '*c_request' if needs_request_var(fn) else 'c_request')
    if any(a.name == 'win' and a.kind == 'handle_in' for a in fn.args):
        return ('ZF_KEEP_WIN', 'zf_Win_f2c(*win)')
    raise ValueError('%s: an asynchronous call with neither request nor window' % fn.name)


def cbuf_flags(fn, a):
    """zf_cbuf_in's flags for choice buffer a of fn."""
    is_async = fn.is_async() and not split_part(fn)
    flags = [f for f, on in (('ZF_ASYNC', is_async),
                             ('ZF_PEER', a.name in PER_PEER.get(base_name(fn), ())),
                             ('ZF_INPLACE', base_name(fn, False) in IN_PLACE_FORMS),
                             ('ZF_ROOTED', base_name(fn, False) == 'Reduce')) if on]
    return ' | '.join(flags) or '0'


def cbuf_setup(fn, a, bufs, target):
    """The lines converting choice buffer a of fn (mpi_f08) into zc_<a>:
    zf_cbuf_in, or for the first of two buffers that share one (count,
    datatype), zf_cbuf_pair for both (the second then has none)."""
    n = a.name
    mode = ('ZF_ADDR' if a.kind == 'address' or split_part(fn) == 'end' else
            'ZF_IN' if a.const else 'ZF_INOUT')
    flags = cbuf_flags(fn, a)
    sharer = [o for o in bufs if o is not a and o.pair and o.pair == a.pair]
    if sharer and bufs.index(sharer[0]) < bufs.index(a):
        return ['void *zb_%s = zc_%s.ptr;' % (n, n)]
    if sharer:
        o, (cnt, dt) = sharer[0], a.pair
        inplace = 'ZF_INPLACE' in flags
        call = ('rc = zf_cbuf_pair(&zc_%s, %s, %s, &zc_%s, %s, %s, %s, (long long)*%s, '
                'zf_Type_f2c(*%s), %s, %s, %s, "%s", "%s", "%s");'
                % (n, n, mode, o.name, o.name, 'ZF_IN' if o.const else 'ZF_INOUT', flags,
                   cnt, dt, 'zf_Comm_f2c(*comm)' if inplace else 'MPI_COMM_NULL',
                   '*root' if 'ZF_ROOTED' in flags else '-1', target, fn.cname, n, o.name))
    elif a.pair:
        cnt, dt = a.pair
        call = ('rc = zf_cbuf_in(&zc_%s, %s, %s, %s, (long long)*%s, zf_Type_f2c(*%s), %s, '
                '"%s", "%s");' % (n, n, mode, flags, cnt, dt, target, fn.cname, n))
    elif a.elem_type:
        # One element per block (ELEM_TYPES): the per-peer counts and
        # displacements count elements of the section's datatype.
        flags = 'ZF_PEER' if flags == '0' else flags + ' | ZF_PEER'
        call = ('rc = zf_cbuf_in(&zc_%s, %s, %s, %s, 1, zf_Type_f2c(*%s), %s, "%s", "%s");'
                % (n, n, mode, flags, a.elem_type, target, fn.cname, n))
    else:
        call = ('rc = zf_cbuf_in(&zc_%s, %s, %s, %s, -1, MPI_DATATYPE_NULL, %s, "%s", "%s");'
                % (n, n, mode, flags, target, fn.cname, n))
    return [call, 'if (rc != MPI_SUCCESS) goto out_%s;' % n, 'void *zb_%s = zc_%s.ptr;' % (n, n)]


def gen_f08ts(fn, out):
    """The mpi_f08 form of a function with choice buffers: buffers (and
    strings) come as CFI descriptors."""
    name = '%s_f08ts' % fn.pname
    b = Body()
    bufs = [a for a in fn.args if a.kind in ('choice', 'address')]
    for a in fn.args:
        conv_arg(fn, a, b, f08=True)
    target = error_target(fn)
    pre = []
    for a in bufs:
        b.decl.append('zf_cbuf_t zc_%s;' % a.name)
        pre += cbuf_setup(fn, a, bufs, target)
    # Pairs replaced by a section datatype.
    for i, a in enumerate(fn.args):
        for bb in bufs:
            if bb.pair and a.name == bb.pair[0]:
                b.callargs[i] = 'zc_%s.sec ? 1 : %s' % (bb.name, b.callargs[i])
            if (bb.pair and a.name == bb.pair[1]) or a.name == bb.elem_type:
                b.callargs[i] = 'zc_%s.sec ? zc_%s.sec : %s' % (bb.name, bb.name, b.callargs[i])
    b.pre = pre + b.pre
    # The copies of sections an asynchronous call works on go to the
    # library with its request or window, once the call started it.
    keep = keep_target(fn)
    if keep:
        b.post += ['zf_cbuf_keep(&zc_%s, rc, %s, %s);' % (a.name, keep[0], keep[1])
                   for a in bufs if a.kind == 'choice']
    frees = []
    for a in reversed(bufs):
        frees.append('zf_cbuf_done(&zc_%s, rc);' % a.name)
        if any('goto out_%s;' % a.name in p for p in pre):
            frees.append('out_%s:;' % a.name)
    out.append('/* %s, mpi_f08 */' % fn.cname)
    fast = fast_path(fn, True, name)
    asm = fn.cname in BIND_ENTRIES
    if asm:
        # The fast path in assembly (zf.h's ZF_FAST_ASM_FN, where the
        # machine allows; else the C form below) jumps to the general form
        # by name.
        out.append('ZF_SLOW_ASM ' + f08ts_proto(fn, 'zf_slow_' + name) + ';')
        # One choice buffer first (ZF_FAST_ASM_FN) or two (..._FN2).
        nchoice = sum(1 for a in fn.args if a.kind == 'choice')
        if [a.kind for a in fn.args[:nchoice]] != ['choice'] * nchoice or nchoice > 2:
            raise Fail('%s: the assembly fast path takes its choice buffers first'
                       % fn.cname)
        out.append('ZF_FAST_ASM_FN%s(%s, %s_f08ts, %s, zf_slow_%s)'
                   % ('2' if nchoice == 2 else '', name, fn.cname, BIND_ENTRIES[fn.cname],
                      name))
        out.append('ZF_SLOW_ASM ' + f08ts_proto(fn, 'zf_slow_' + name))
    else:
        out.append(('ZF_SLOW ' + f08ts_proto(fn, 'zf_slow_' + name)) if fast else
                   f08ts_proto(fn, name))
    out.append('{')
    out += f08_value_ptrs(fn)
    if needs_request_var(fn):
        b.post.insert(0, 'if (rc == MPI_SUCCESS) *request = PMPI_Request_c2f(*c_request);')
    fix_request_arg(fn, b)
    fix_comm_var(fn, b)
    for d in b.decl:
        out.append('    ' + d)
    out.append('    int rc = MPI_SUCCESS;')
    for p in b.pre:
        out.append('    ' + p)
    out.append('    rc = %s(%s);' % (fn.pname, ', '.join(b.callargs)))
    for p in b.post:
        out.append('    ' + p)
    if any('goto out;' in p for p in b.pre):
        out.append('out:')
    for p in b.free:
        out.append('    ' + p)
    # Labels out_<buf> after their buffers' cleanup, in reverse order.
    for p in frees:
        out.append('    ' + p if not p.startswith('out_') else p)
    out.append('    if (ierror)')
    out.append('        *ierror = rc;')
    out.append('}')
    if asm:
        out.append('#ifndef ZF_FAST_ASM')
    if fast:
        emit_fast(fast, f08ts_proto(fn, name), out)
    out.append('ZF_WEAK(%s, %s_f08ts)' % (name, fn.cname))
    if asm:
        out.append('#endif')
    out.append('')


def predef_f2c(consts):
    """Inline f2c conversions that answer the predefined handles (fixed
    Fortran indices, fconst.txt) from a table of their C values, without a
    call into the library: they are on almost every call's path."""
    by_kind = {}
    for c in consts:
        # Index 0 (the null handle, MPI_X_NULL) too: its C value is what
        # MPI_X_f2c(0) gives.
        if c[0] == 'HANDLE' and int(c[3]) >= 0:
            by_kind.setdefault(c[1], {}).setdefault(int(c[3]), c[2])
    out = ['/* Predefined handles by Fortran index: converted without a call into',
           ' * the library (they are on almost every call\'s path); other indices',
           ' * go to MPI_X_f2c. */']
    for ctype, h in sorted(HANDLES.items()):
        table = by_kind.get(ctype)
        if not table or max(table) == 0:
            out.append('#define zf_%s_f2c PMPI_%s_f2c' % (h, h))
            continue
        out.append('static const %s zf_predef_%s[] = {' % (ctype, h))
        out += ['    [%d] = %s,' % (i, table[i]) for i in sorted(table)]
        FAST_HANDLES.add(ctype)
        # Without gaps, every index in the table converts as MPI_X_f2c
        # would (the null handle included, which the C call then reports).
        dense = sorted(table) == list(range(0, max(table) + 1))
        out += ['};',
                '/* Whether f is in the table of predefined handles (its C handle',
                ' * is zf_%s_pre(f) then). */' % h,
                'ZF_INLINE int zf_%s_fast(MPI_Fint f)' % h,
                '{',
                '    return (unsigned)f < sizeof zf_predef_%s / sizeof *zf_predef_%s%s;'
                % (h, h, '' if dense else ' && zf_predef_%s[f] != 0' % h),
                '}']
        # When mpi.h makes the C handles of a kind's predefined values their
        # Fortran indices (the communicators: MPI_COMM_WORLD is 1, as in
        # Fortran), the conversion needs no table: GCC sees the comparisons
        # below as constants and keeps one branch.
        ident = ' &&\n        '.join('(uintptr_t)%s == %d' % (table[i], i) for i in sorted(table))
        out += ['/* The C handle of predefined handle f (zf_%s_fast(f) true). */' % h,
                'ZF_INLINE %s zf_%s_pre(MPI_Fint f)' % (ctype, h),
                '{']
        if len(table) <= 8:  # larger kinds hold addresses
            out += ['    if (__builtin_constant_p(%s) &&\n        %s)' % (ident, ident),
                    '        return (%s)(uintptr_t)(unsigned)f;' % ctype]
        out += ['    return zf_predef_%s[f];' % h,
                '}',
                'ZF_INLINE %s zf_%s_f2c(MPI_Fint f)' % (ctype, h),
                '{',
                '    if (f > 0 && (size_t)f < sizeof zf_predef_%s / sizeof *zf_predef_%s &&'
                % (h, h),
                '        zf_predef_%s[f])' % h,
                '        return zf_predef_%s[f];' % h,
                '    return PMPI_%s_f2c(f);' % h,
                '}']
    out.append('')
    return out


def gen_glue(fns, consts, path):
    out = ['/* DO NOT EDIT: generated by scripts/gen_fortran.py from include/mpi.h.',
           ' * The C glue of the Fortran bindings (docs/fortran.md).',
           ' *',
           ' * Contract of every function here: pmpi_x_ (weak alias mpi_x_) is MPI_X',
           ' * as gfortran calls an external procedure (every argument by reference,',
           ' * string lengths appended); PMPI_X_f08ts (weak alias MPI_X_f08ts) is the',
           ' * mpi_f08 form with CFI descriptors for choice buffers.  Each runs on the',
           ' * calling rank\'s thread; the caller owns the arguments; temporaries are',
           ' * freed before returning, except arrays a nonblocking call still reads,',
           ' * kept with its request (zf_keep) until it completes. */',
           '#include "zf.h"', '',
           '/* GCC sees MPI_STATUSES_IGNORE, a small constant address, passed for an',
           ' * array parameter of mpi.h and warns of an overflow that cannot happen:',
           ' * the library never writes through it. */',
           '#pragma GCC diagnostic ignored "-Wstringop-overflow"', '']
    out += predef_f2c(consts)
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
            # The hand-written glue of a function mpi.h may not declare yet
            # is compiled only when it does.
            hdr.append('#define ZF_HAVE_%s 1' % fn.name)
            hdr.append(f77_proto(fn, fn.f77name) + ';')
            if fn.has_choice():
                hdr.append(f08ts_proto(fn, '%s_f08ts' % fn.pname) + ';')
    write(path, '\n'.join(out) + '\n')
    write(path.replace('.c', '_hand.h'), '\n'.join(hdr) + '\n')
