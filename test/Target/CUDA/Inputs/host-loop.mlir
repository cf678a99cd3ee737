// A host step with a serial loop outside its one launch (check-host-loops.py
// must find it).
func.func @f() {
  scf.for %i = %a to %b step %c {
  }
  gpu.launch blocks() {
    scf.for %j = x {
    }
    gpu.terminator
  }
  return
}
