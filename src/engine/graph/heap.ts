// A binary min-heap of non-negative integers, used to break ties by address (smaller node number
// = earlier address) in the topological orders.

export class MinHeap {
  private data: Int32Array;
  private length = 0;

  constructor(capacity: number) {
    this.data = new Int32Array(Math.max(1, capacity));
  }

  get size(): number {
    return this.length;
  }

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Int32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    let i = this.length++;
    const data = this.data;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (data[parent]! <= value) break;
      data[i] = data[parent]!;
      i = parent;
    }
    data[i] = value;
  }

  pop(): number {
    const data = this.data;
    const top = data[0]!;
    const last = data[--this.length]!;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.length) break;
      const right = left + 1;
      const child = right < this.length && data[right]! < data[left]! ? right : left;
      if (data[child]! >= last) break;
      data[i] = data[child]!;
      i = child;
    }
    data[i] = last;
    return top;
  }
}
