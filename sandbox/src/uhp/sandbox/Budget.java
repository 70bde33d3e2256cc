package uhp.sandbox;

/**
 * What one statement's answer may cost, counted while its values are converted: the heap the
 * converted values hold (`valueBytes`) and the JSON bytes the answer will take (`answerBytes`).
 * Counting as values are made stops a huge value before it exists whole in our own memory, where
 * checking the finished answer would be too late.
 */
final class Budget {
    /** A bound was passed: `bound` names which ("answer_bytes" or "value_bytes"). */
    static final class Exceeded extends RuntimeException {
        final String bound;

        Exceeded(String bound) {
            super(bound, null, false, false);
            this.bound = bound;
        }
    }

    private final long valueLimit;
    private final long answerLimit;
    private long values;
    private long answer;

    Budget(long valueLimit, long answerLimit) {
        this.valueLimit = valueLimit;
        this.answerLimit = answerLimit;
    }

    /** Charges one converted value: its heap estimate and its JSON length. */
    void charge(long heapBytes, long jsonBytes) {
        values += heapBytes;
        answer += jsonBytes;
        if (values > valueLimit) {
            throw new Exceeded("value_bytes");
        }
        if (answer > answerLimit) {
            throw new Exceeded("answer_bytes");
        }
    }

    long answerBytes() {
        return answer;
    }

    /** A mark to roll back to when a row is dropped whole. */
    long[] mark() {
        return new long[] {values, answer};
    }

    void reset(long[] mark) {
        values = mark[0];
        answer = mark[1];
    }
}
